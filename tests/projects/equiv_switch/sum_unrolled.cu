// The block sum unrolled over its template block size: each step a
// statement of its own, the ones above the block skipped (`Size >= 128`).
// expect-kernel: sum_unrolled verified

template <unsigned int Size> __global__ void sum_unrolled(const float *in, float *out)
{
    extern __shared__ float part[];
    unsigned int t = threadIdx.x;
    float acc = in[blockIdx.x * Size + t];
    part[t] = acc;
    __syncthreads();
    if (Size >= 128 && t < 64)
        part[t] = acc = acc + part[t + 64];
    __syncthreads();
    if (Size >= 64 && t < 32)
        part[t] = acc = acc + part[t + 32];
    __syncthreads();
    if (t < 16)
        part[t] = acc = acc + part[t + 16];
    __syncthreads();
    if (t < 8)
        part[t] = acc = acc + part[t + 8];
    __syncthreads();
    if (t < 4)
        part[t] = acc = acc + part[t + 4];
    __syncthreads();
    if (t < 2)
        part[t] = acc = acc + part[t + 2];
    __syncthreads();
    if (t == 0)
        out[blockIdx.x] = acc + part[1];
}
