// The classic "unrolled last warp" reduction: once 64 partial sums are left,
// the first warp finishes without barriers through a volatile pointer,
// relying on the 32 threads running in lockstep.  Since Volta, threads of a
// warp are scheduled independently, and the default model does not assume
// lockstep: thread 0 reads sm[16] while thread 16 writes it.
// syncscope-args: --block-dim 256 --grid-dim 64
// expect-kernel: reduce_warp_unrolled racy

__global__ void reduce_warp_unrolled(int *out, const int *in)
{
    __shared__ int sdata[256];
    unsigned int tid = threadIdx.x;

    sdata[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid < 32) {
        volatile int *sm = sdata;
        sm[tid] += sm[tid + 32]; //~ data-race
        sm[tid] += sm[tid + 16]; //~ data-race
        sm[tid] += sm[tid + 8]; //~ data-race
        sm[tid] += sm[tid + 4]; //~ data-race
        sm[tid] += sm[tid + 2]; //~ data-race
        sm[tid] += sm[tid + 1]; //~ data-race
    }

    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
