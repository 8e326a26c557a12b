// Optimised block sum: a tree reduction in shared memory with sequential
// addressing (no divergent modulo test, no bank conflicts). It adds in a
// different order than reduce_naive.cu, so the two agree only if + is
// associative.
#define BLOCK 256
// expect-kernel: block_sum verified
__global__ void block_sum(float *out, const float *in, int n) {
    __requires(blockDim.x == BLOCK && blockDim.y == 1 && blockDim.z == 1);
    __requires(gridDim.y == 1 && gridDim.z == 1 && n >= 0); // `g < n` compares unsigned
    __shared__ float s[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int g = blockIdx.x * BLOCK + tid;
    s[tid] = g < n ? in[g] : 0.0f;
    __syncthreads();
    for (unsigned int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            s[tid] += s[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = s[0];
    }
}
