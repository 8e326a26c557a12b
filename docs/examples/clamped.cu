// docs/diagnostics.md, data-race: each thread clamps its column into a row
// of `width` cells, marked with the thread's index; with fewer than 16
// cells, threads share the last one.
__global__ void clamped(float *out, const float *in, int width)
{
    __shared__ float row[16];
    int t = threadIdx.x;
    if (t < 16) {
        int col = max(0, min(t, width - 1));
        row[col] = in[blockIdx.x * width + col] + t;
    }
    __syncthreads();
    if (t < 16)
        out[blockIdx.x * 16 + t] = row[15 - t];
}
