// Issue 26 hole 9: a scale by the double literal `0.1`: the product is
// computed in double and rounded to float when stored. For in[i] = 9 it
// stores (float)(9 * 0.1) = 0.9f, not 9 * 0.1f (0.90000004f).
// expect-kernel: scale verified
__global__ void scale(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * 0.1;
}
