// atomic_vs_plain.cu fixed: the plain reset of the shared counter is
// separated from the atomics by a barrier, and the final plain read by
// another one.  Both barriers are needed.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: reset_then_count verified

__global__ void reset_then_count(int *per_block, const int *flags)
{
    __shared__ int hits;
    int tid = threadIdx.x;

    if (tid == 0)
        hits = 0;
    __syncthreads();
    if (flags[blockIdx.x * blockDim.x + tid] != 0)
        atomicAdd(&hits, 1);
    __syncthreads();
    if (tid == 0)
        per_block[blockIdx.x] = hits;
}
