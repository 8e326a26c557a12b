// __launch_bounds__ between the return type and the name.  The kernel is a
// block-wide shift through shared memory; the barrier is needed.
// syncscope-args: --block-dim 256 --grid-dim 8
// expect-kernel: bounded_shift verified

__global__ void __launch_bounds__(256) bounded_shift(int *out, const int *in)
{
    __shared__ int s[256];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    s[tid] = in[gid];
    __syncthreads();
    out[gid] = tid > 0 ? s[tid - 1] : 0;
}
