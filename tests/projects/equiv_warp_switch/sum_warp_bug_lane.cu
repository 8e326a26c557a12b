// Seeded bug in sum_warp.cu: each shuffle reads the lane `d + 1` above,
// not `d`: lane 0 ends with some lanes counted twice and others not at
// all.
// expect-kernel: sum_warp_bug_lane verified

template <unsigned int Size> __global__ void sum_warp_bug_lane(const float *in, float *out)
{
    extern __shared__ float part[];
    unsigned int t = threadIdx.x;
    float acc = in[blockIdx.x * Size + t];
    part[t] = acc;
    __syncthreads();
    for (unsigned int half = Size / 2; half > 32; half >>= 1) {
        if (t < half)
            part[t] = acc = acc + part[t + half];
        __syncthreads();
    }
    if (t < 32) {
        if (Size >= 64)
            acc += part[t + 32];
        for (int d = 16; d > 0; d /= 2)
            acc += __shfl_down_sync(0xffffffff, acc, d + 1);
    }
    if (t == 0)
        out[blockIdx.x] = acc;
}
