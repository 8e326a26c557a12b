// Seeded bug in reduce_tree.cu: each step adds the wrong partner
// (`tid + stride + 1`), so some elements are added twice and others never.
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
    for (unsigned int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            s[tid] += s[tid + stride + 1];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = s[0];
    }
}
