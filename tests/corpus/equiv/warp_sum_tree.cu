// One warp's sum through shared memory: a halving tree over 32 cells.
// expect-kernel: warp_sum verified
__global__ void warp_sum(float *out, const float *in) {
    __requires(blockDim.x == 32 && blockDim.y == 1 && blockDim.z == 1);
    __requires(gridDim.y == 1 && gridDim.z == 1);
    __shared__ float s[32];
    unsigned int lane = threadIdx.x;
    s[lane] = in[blockIdx.x * 32 + lane];
    __syncthreads();
    for (unsigned int d = 16; d > 0; d >>= 1) {
        if (lane < d) {
            s[lane] += s[lane + d];
        }
        __syncthreads();
    }
    if (lane == 0) {
        out[blockIdx.x] = s[0];
    }
}
