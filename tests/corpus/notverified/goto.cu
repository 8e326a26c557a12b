// `goto` is outside the model: the kernel is reported not-verified at the
// goto, even though it is otherwise a plain race-free copy.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: copy_with_goto not-verified

__global__ void copy_with_goto(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        goto done; //~ not-verified
    out[i] = in[i];
done:
    return;
}
