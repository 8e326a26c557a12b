// Issue 17 item 11. `slot` and `STRIDE` come from a header the tool does not
// read: whether two threads collide depends on them, so the result is a
// possible race (not-verified, naming the unknown), never a definite race
// with a made-up witness.
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: unseen_function not-verified
// expect-kernel: unseen_constant not-verified

__global__ void unseen_function(int *out, int k)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[slot(t, k)] = t; //~ not-verified
    __syncthreads();
    out[t] = s[t];
}

__global__ void unseen_constant(int *out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t * STRIDE] = t; //~ not-verified
    __syncthreads();
    out[t] = s[t];
}
