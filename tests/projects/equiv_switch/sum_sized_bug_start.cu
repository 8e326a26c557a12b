// Seeded bug: the halving starts a step too low (`Size / 4`), so the
// upper half of the block is never added.
// expect-kernel: sum_sized_bug_start verified

template <unsigned int Size> __global__ void sum_sized_bug_start(const float *in, float *out)
{
    extern __shared__ float part[];
    unsigned int t = threadIdx.x;
    part[t] = in[blockIdx.x * Size + t];
    __syncthreads();
    for (unsigned int half = Size / 4; half > 0; half >>= 1) {
        if (t < half)
            part[t] = part[t] + part[t + half];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = part[0];
}
