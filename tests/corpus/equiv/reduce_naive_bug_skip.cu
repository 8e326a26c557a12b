// Seeded bug: the serial sum starts at 1, skipping the block's first
// element.
// expect-kernel: block_sum verified
__global__ void block_sum(float *out, const float *in, int n) {
    __requires(blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1);
    if (threadIdx.x == 0) {
        float sum = 0.0f;
        for (int i = 1; i < blockDim.x; ++i) {
            int g = blockIdx.x * blockDim.x + i;
            sum += g < n ? in[g] : 0.0f;
        }
        out[blockIdx.x] = sum;
    }
}
