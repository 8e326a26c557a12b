// The block sum of sum_sized.cu, launched by host.cu for 128 and 64
// threads only.
// expect-kernel: sum_wide verified

template <unsigned int Size> __global__ void sum_wide(const float *in, float *out)
{
    extern __shared__ float part[];
    unsigned int t = threadIdx.x;
    part[t] = in[blockIdx.x * Size + t];
    __syncthreads();
    for (unsigned int half = Size / 2; half > 0; half >>= 1) {
        if (t < half)
            part[t] = part[t] + part[t + half];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = part[0];
}
