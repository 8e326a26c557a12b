// docs/diagnostics.md, barrier-divergence: the bounds check wraps the
// barrier, so threads past the end of the data skip it.
__global__ void guarded(float *out, const float *in, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x, g = blockIdx.x * 256 + t;
    if (g < n) {
        s[t] = in[g];
        __syncthreads();
        out[g] = s[255 - t];
    }
}
