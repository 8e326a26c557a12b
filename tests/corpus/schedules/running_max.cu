// Issue 15: `atomicMax` leaves the same maximum in every order, but what
// it returns (the maximum so far) depends on the order: storing it makes
// the output schedule-dependent (found). Discarding it is fine.
// syncscope-args: --deterministic --block-dim 64 --grid-dim 2
// expect-kernel: record_previous_max verified
// expect-kernel: block_max verified

__global__ void record_previous_max(int *best, int *previous)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int prev = atomicMax(&best[blockIdx.x], (int)threadIdx.x); //~ schedule-dependent
    previous[i] = prev;
}

__global__ void block_max(const int *v, int *best)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int prev = atomicMax(&best[blockIdx.x], v[i]);
    (void)prev;
}
