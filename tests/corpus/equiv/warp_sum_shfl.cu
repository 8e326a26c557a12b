// One warp's sum in registers: each step adds the value of the lane `d`
// above (`__shfl_down_sync`), lane 0 ends with the sum of the warp.
// expect-kernel: warp_sum verified
__global__ void warp_sum(float *out, const float *in) {
    __requires(blockDim.x == 32 && blockDim.y == 1 && blockDim.z == 1);
    __requires(gridDim.y == 1 && gridDim.z == 1);
    unsigned int lane = threadIdx.x;
    float acc = in[blockIdx.x * 32 + lane];
    for (int d = 16; d > 0; d /= 2) {
        acc += __shfl_down_sync(0xffffffff, acc, d);
    }
    if (lane == 0) {
        out[blockIdx.x] = acc;
    }
}
