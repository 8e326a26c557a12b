// Issue 17 item 7. A macro that names the barrier is the barrier: calling
// it under a thread-dependent condition is divergent.
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: macro_named_barrier divergent

#define block_sync __syncthreads

__global__ void macro_named_barrier(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    if (t < 32)
        block_sync(); //~ barrier-divergence
    out[t] = s[t];
}
