// Issue 26 hole 9: the float scale of scale_float_literal.cu with the
// literal spelled another way (`.1F`) and the index bound named first:
// the same number of the same type, so the same kernel.
// expect-kernel: scale verified
__global__ void scale(float *out, const float *in, int n) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (n > i)
        out[i] = in[i] * .1F;
}
