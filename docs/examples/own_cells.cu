// docs/diagnostics.md, redundant-barrier: every thread reads back only the
// cell it wrote, so the barrier orders nothing.
__global__ void scale(float *a, float k)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = a[blockIdx.x * 256 + t];
    __syncthreads();
    a[blockIdx.x * 256 + t] = s[t] * k;
}
