// Issue 26 hole 9: the same scale by the float literal `0.1f`, computed in
// float (scale_double_literal.cu computes in double): a different kernel.
// expect-kernel: scale verified
__global__ void scale(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * 0.1f;
}
