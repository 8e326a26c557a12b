// Kernels loaded by name through the driver API (host.cpp), each written
// for one block size: a block covers `TILE` cells of `out`, one per
// thread, so a block of more than `TILE` threads writes into the next
// block's cells. Which kernel runs with which block size is chosen by a
// helper that hands both back through pointers (`&f`, `&threads`).
// `ring_256`, `ring_128`: tried widest first, the block halved when the
// occupancy query says it does not fit; each is launched only with its
// own size (or, when none fits, the last one with half of its): race-free.
// `band_wide` (256) and `band_narrow` (64): the same loop from 256, where
// the second kernel is paired with 128 threads (racy). `mix_wide` (256),
// `mix_narrow` (128): the index into the names is not known, so each may
// run with either size: the union of them (the wide one race-free, the
// narrow one racy). The narrow ones add the thread's index to what they
// store, so two threads of one cell store different values (the same
// read-only input alone would be a benign race).
// expect-kernel: ring_256 verified
// expect-kernel: ring_128 verified
// expect-kernel: band_wide verified
// expect-kernel: band_narrow racy
// expect-kernel: mix_wide verified
// expect-kernel: mix_narrow racy

extern "C" __global__ void ring_256(float *out, const float *in)
{
    out[blockIdx.x * 256 + threadIdx.x] = 2.0f * in[blockIdx.x * 256 + threadIdx.x];
}

extern "C" __global__ void ring_128(float *out, const float *in)
{
    out[blockIdx.x * 128 + threadIdx.x] = 2.0f * in[blockIdx.x * 128 + threadIdx.x];
}

extern "C" __global__ void band_wide(float *out, const float *in)
{
    out[blockIdx.x * 256 + threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x] + 1.0f;
}

extern "C" __global__ void band_narrow(float *out, const float *in)
{
    out[blockIdx.x * 64 + threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x] + threadIdx.x; //~ data-race
}

extern "C" __global__ void mix_wide(float *out, const float *in)
{
    out[blockIdx.x * 256 + threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x] - 1.0f;
}

extern "C" __global__ void mix_narrow(float *out, const float *in)
{
    out[blockIdx.x * 128 + threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x] - threadIdx.x; //~ data-race
}
