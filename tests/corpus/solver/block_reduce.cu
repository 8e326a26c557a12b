// Must-show kernel 4 of issue 20: a block reduction with a halving stride,
// symbolic launch sizes. In each round only threads below the stride write,
// and they read their partner above it; the barrier closes each round:
// verified. `partial_sums` writes each block's sum to out[blockIdx.x].
// expect-kernel: block_reduce verified

__global__ void block_reduce(const float *in, float *out, int n)
{
    extern __shared__ float partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}
