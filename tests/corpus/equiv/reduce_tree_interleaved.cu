// Block sum as a tree with interleaved addressing (the stride doubling by
// `<<= 1`, a modulo test picking the threads): the same sum as
// reduce_tree.cu (sequential addressing) in another order, so the two
// agree only if + is associative.
#define BLOCK 256
// expect-kernel: block_sum verified
__global__ void block_sum(float *out, const float *in, int n) {
    __requires(blockDim.x == BLOCK && blockDim.y == 1 && blockDim.z == 1);
    __requires(gridDim.y == 1 && gridDim.z == 1);
    __shared__ float s[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int g = blockIdx.x * BLOCK + tid;
    s[tid] = g < n ? in[g] : 0.0f;
    __syncthreads();
    for (unsigned int stride = 1; stride < BLOCK; stride <<= 1) {
        if (tid % (2 * stride) == 0) {
            s[tid] += s[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = s[0];
    }
}
