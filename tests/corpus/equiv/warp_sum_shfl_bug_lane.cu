// Seeded bug: the warp sum reads the lane `d + 1` above: lane 0 adds the
// wrong lanes.
// expect-kernel: warp_sum verified
__global__ void warp_sum(float *out, const float *in) {
    __requires(blockDim.x == 32 && blockDim.y == 1 && blockDim.z == 1);
    __requires(gridDim.y == 1 && gridDim.z == 1);
    unsigned int lane = threadIdx.x;
    float acc = in[blockIdx.x * 32 + lane];
    for (int d = 16; d > 0; d /= 2) {
        acc += __shfl_down_sync(0xffffffff, acc, d + 1);
    }
    if (lane == 0) {
        out[blockIdx.x] = acc;
    }
}
