// Kernels whose block size the host code (host.cu) computes into a local
// with a rounding helper of one `return` (`(a % b == 0) ? a / b : a / b +
// 1`) over constants: the launch passes that local, so the block size is
// the helper's value (64 threads: race-free; 65: racy).
// expect-kernel: quads verified
// expect-kernel: quads_one_more racy

#define ROW 256

// Each thread writes four consecutive cells of its block's row of ROW
// cells: the row is covered without overlap by exactly ROW / 4 threads.
__global__ void quads(float *out, const float *in)
{
    unsigned base = blockIdx.x * ROW + threadIdx.x * 4;
    for (int k = 0; k < 4; ++k) {
        out[base + k] = in[base + k] * 2.0f;
    }
}

// The same rows under one thread more than ROW / 4: its cells are the
// next block's first four (written with another thread index).
__global__ void quads_one_more(float *out, const float *in)
{
    unsigned base = blockIdx.x * ROW + threadIdx.x * 4;
    for (int k = 0; k < 4; ++k) {
        out[base + k] = in[base + k] * 2.0f + threadIdx.x; //~ data-race
    }
}
