// The block sum as a tree in shared memory, its block size a template
// argument (host.cu launches it once per `case` of `switch (threads)`).
// expect-kernel: sum_tree verified

template <unsigned int Size> __global__ void sum_tree(const float *in, float *out)
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
