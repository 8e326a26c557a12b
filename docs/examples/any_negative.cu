__global__ void any_negative(int *flags, const float *in)
{
    __shared__ int s_found;
    if (threadIdx.x == 0)
        s_found = 0;
    __syncthreads();
    if (in[blockIdx.x * 256 + threadIdx.x] < 0.0f)
        s_found = 1;   // benign-race
    __syncthreads();
    if (threadIdx.x == 0)
        flags[blockIdx.x] = s_found;
}
