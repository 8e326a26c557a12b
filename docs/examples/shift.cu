// docs/diagnostics.md, data-race: each thread reads its neighbour's cell
// with no barrier after the neighbour writes it.
__global__ void shift(float *out, const float *in)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 256 + t];
    out[blockIdx.x * 256 + t] = s[(t + 1) % 256];
}
