// GKLEE-atm's distinction between synchronising and ordinary accesses: the
// atomicAdd is a synchronising access, but thread 0's plain reset of the
// same shared cell is ordinary and nothing orders it against the other
// threads' atomics.  Witness: thread 0 resetting `hits`, another thread of
// the same block incrementing it.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: reset_while_counting racy

__global__ void reset_while_counting(int *per_block, const int *flags)
{
    __shared__ int hits;
    int tid = threadIdx.x;

    if (tid == 0)
        hits = 0; //~ data-race
    if (flags[blockIdx.x * blockDim.x + tid] != 0)
        atomicAdd(&hits, 1); //~ data-race
    __syncthreads();
    if (tid == 0)
        per_block[blockIdx.x] = hits;
}
