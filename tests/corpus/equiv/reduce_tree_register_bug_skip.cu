// Seeded bug: the register tree stops a step early (`stride > 1`): thread
// 0's register misses cell 1's partial sum.
#define BLOCK 256
// expect-kernel: block_sum verified
__global__ void block_sum(float *out, const float *in, int n) {
    __requires(blockDim.x == BLOCK && blockDim.y == 1 && blockDim.z == 1);
    __requires(gridDim.y == 1 && gridDim.z == 1 && n >= 0);
    __shared__ float s[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int g = blockIdx.x * BLOCK + tid;
    float acc = g < n ? in[g] : 0.0f;
    s[tid] = acc;
    __syncthreads();
    for (unsigned int stride = BLOCK / 2; stride > 1; stride >>= 1) {
        if (tid < stride) {
            s[tid] = acc = acc + s[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = acc;
    }
}
