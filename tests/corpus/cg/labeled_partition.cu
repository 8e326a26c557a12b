// `labeled_partition(g, label)` splits a coalesced group into the threads
// with one label; `thread_rank()` and `size()` are those of the part.
//  * bucket_max:       the rank-0 thread of each part folds the part's
//                      maximum into its bucket with `atomicMax`: verified.
//  * bucket_slots:     each part takes slots from its own bucket's counter
//                      (a warp-aggregated add at `&counters[bucket]`): two
//                      buckets' counters may hand out the same slot (the
//                      model knows nothing of their start values): racy.
//  * bucket_part_sync: a part's `sync()` orders only that part (not
//                      modelled): not-verified, named.
// syncscope-args: --block-dim 128 --grid-dim 4
// expect-kernel: bucket_max verified
// expect-kernel: bucket_slots racy
// expect-kernel: bucket_part_sync not-verified

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void bucket_max(const int *keys, const int *values, int *maxima, int buckets)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int bucket = keys[i];
    if (bucket < buckets) {
        cg::coalesced_group active = cg::coalesced_threads();
        auto part = cg::labeled_partition(active, bucket);
        int best = cg::reduce(part, values[i], cg::greater<int>());
        if (part.thread_rank() == 0)
            atomicMax(&maxima[bucket], best);
    }
}

__device__ int bucket_slot(int bucket, int *counters)
{
    cg::coalesced_group active = cg::coalesced_threads();
    auto part = cg::labeled_partition(active, bucket);
    int first = 0;
    if (part.thread_rank() == 0)
        first = atomicAdd(&counters[bucket], part.size());
    first = part.shfl(first, 0);
    return first + part.thread_rank();
}

__global__ void bucket_slots(const int *keys, int *slots, int *counters, int buckets)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int bucket = keys[i];
    if (bucket < buckets)
        slots[bucket_slot(bucket, counters)] = i; //~ data-race
}

__global__ void bucket_part_sync(const int *keys, int *out)
{
    __shared__ int seen[128];
    int bucket = keys[blockIdx.x * blockDim.x + threadIdx.x];
    cg::coalesced_group active = cg::coalesced_threads();
    auto part = cg::labeled_partition(active, bucket);
    seen[threadIdx.x] = bucket;
    part.sync(); //~ not-verified
    out[blockIdx.x * blockDim.x + threadIdx.x] = seen[threadIdx.x];
}
