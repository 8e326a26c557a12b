// A backward `goto` (a retry loop written with a label) is outside the
// model: the kernel is reported not-verified at the goto, even though it is
// otherwise a plain race-free grid-stride copy. (Forward jumps to a later
// label are modelled: loops/early_exit.cu.)
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: copy_with_goto not-verified

__global__ void copy_with_goto(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
again:
    if (i >= n)
        return;
    out[i] = in[i];
    i += blockDim.x * gridDim.x;
    goto again; //~ not-verified
}
