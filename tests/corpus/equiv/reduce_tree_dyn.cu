// Optimised block sum for any power-of-two block size: the tree of
// reduce_tree.cu over a dynamically sized shared array, the stride halving
// from blockDim.x / 2. A block size that is not a power of two would lose
// elements (the halving skips odd remainders), so the kernel states it.
// expect-kernel: block_sum verified
__global__ void block_sum(float *out, const float *in, int n) {
    __requires(blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1 && n >= 0);
    __requires((blockDim.x & (blockDim.x - 1)) == 0 && blockDim.x <= 1024);
    extern __shared__ float s[];
    unsigned int tid = threadIdx.x;
    unsigned int g = blockIdx.x * blockDim.x + tid;
    s[tid] = g < n ? in[g] : 0.0f;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            s[tid] += s[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = s[0];
    }
}
