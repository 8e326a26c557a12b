// The tree of reduce_tree_dyn.cu without its power-of-two precondition:
// reduce_tree.cu over a dynamically sized shared array, the stride halving
// from blockDim.x / 2. With a block size that is not a power of two it loses
// elements (the halving skips odd remainders).
// expect-kernel: block_sum verified
__global__ void block_sum(float *out, const float *in, int n) {
    __requires(blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1);
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
