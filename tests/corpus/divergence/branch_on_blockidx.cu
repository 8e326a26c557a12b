// A barrier inside a branch on blockIdx: all threads of a block agree on the
// condition, so the barrier is reached by the whole block or by none of it.
// Not divergent; the barrier is needed.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: odd_blocks_reverse verified

__global__ void odd_blocks_reverse(int *out, const int *in)
{
    __shared__ int s[128];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;
    if (blockIdx.x % 2 == 1) {
        s[tid] = in[gid];
        __syncthreads();
        out[gid] = s[127 - tid];
    } else {
        out[gid] = in[gid];
    }
}
