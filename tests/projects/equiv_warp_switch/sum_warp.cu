// The block sum of sum_tree.cu down to 64 cells, then the first warp in
// registers: each lane adds the cell 32 above its own (when the block has
// one) and `__shfl_down_sync` halves the distance from 16 to 1. On a block
// of fewer than 32 threads the shuffles read the registers of lanes that
// no thread is (undefined in CUDA), as in the launches of 16 and 8 threads.
// expect-kernel: sum_warp verified

template <unsigned int Size> __global__ void sum_warp(const float *in, float *out)
{
    extern __shared__ float part[];
    unsigned int t = threadIdx.x;
    float acc = in[blockIdx.x * Size + t];
    part[t] = acc;
    __syncthreads();
    for (unsigned int half = Size / 2; half > 32; half >>= 1) {
        if (t < half)
            part[t] = acc = acc + part[t + half];
        __syncthreads();
    }
    if (t < 32) {
        if (Size >= 64)
            acc += part[t + 32];
        for (int d = 16; d > 0; d /= 2)
            acc += __shfl_down_sync(0xffffffff, acc, d);
    }
    if (t == 0)
        out[blockIdx.x] = acc;
}
