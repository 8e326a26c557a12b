// An early return on a block-uniform condition (blocks past the data leave
// as a whole) before a barrier: not divergent.  The barrier is needed.
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: tail_blocks_exit verified

__global__ void tail_blocks_exit(int *out, const int *in, int num_blocks)
{
    if (blockIdx.x >= num_blocks)
        return;
    __shared__ int s[128];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;
    s[tid] = in[gid];
    __syncthreads();
    out[gid] = s[(tid + 64) % 128];
}
