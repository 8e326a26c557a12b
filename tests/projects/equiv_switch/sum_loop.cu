// A block sum whose halving loop starts from the block's own size: any
// launch of host.cu's `case 0:` (the block is `threads` wide).
// expect-kernel: sum_loop verified

__global__ void sum_loop(const float *in, float *out)
{
    extern __shared__ float part[];
    unsigned int t = threadIdx.x;
    part[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (t < half)
            part[t] = part[t] + part[t + half];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = part[0];
}
