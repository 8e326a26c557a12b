// Seeded bug: the register keeps adding, but its cell is stored only while
// the stride is above 32: the last steps read partial sums that were never
// stored. The register is not its cell, so it is not read as one.
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
    for (unsigned int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            acc = acc + s[tid + stride];
            if (stride > 32) {
                s[tid] = acc;
            }
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = acc;
    }
}
