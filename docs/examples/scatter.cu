// docs/diagnostics.md, data-race: each thread moves one element to the
// slot `slot[i]` gives it; two threads collide only if two slots are equal.
__global__ void scatter(const int *slot, const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[slot[i]] = in[i];
}
