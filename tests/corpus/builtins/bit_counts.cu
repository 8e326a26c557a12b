// Bit-counting intrinsics: `__popc`, `__clz`, `__ffs` return a count of
// bits of a 32-bit word, 0..32.  A thread that owns 33 slots and indexes
// them by such a count stays inside its own slots; with 32 slots the count
// 32 reaches the next thread's first slot.
//  * popcount_histogram:       33 slots per thread: verified.
//  * popcount_histogram_short: 32 slots per thread: racy (a word of 32 set
//                              bits lands in the neighbour's slot 0).
//  * leading_zero_buckets:     per-block buckets by `__clz`, updated with
//                              atomics, and a per-thread first-set-bit
//                              record: verified.
//  * leading_zero_store:       the bucket is stored, not added: racy.
// syncscope-args: --block-dim 256 --grid-dim 32
// expect-kernel: popcount_histogram verified
// expect-kernel: popcount_histogram_short racy
// expect-kernel: leading_zero_buckets verified
// expect-kernel: leading_zero_store racy

__global__ void popcount_histogram(const unsigned *words, int *slots)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned w = words[gid];
    slots[gid * 33 + __popc(w)] += 1;
}

__global__ void popcount_histogram_short(const unsigned *words, int *slots)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned w = words[gid];
    slots[gid * 32 + __popc(w)] += 1; //~ data-race
}

__global__ void leading_zero_buckets(const unsigned *keys, int *buckets, int *first_bit)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned k = keys[gid];
    atomicAdd(&buckets[blockIdx.x * 33 + __clz(k)], 1);
    first_bit[gid] = __ffs(k);
}

__global__ void leading_zero_store(const unsigned *keys, int *buckets)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned k = keys[gid];
    buckets[blockIdx.x * 33 + __clz(k)] = gid; //~ data-race
}
