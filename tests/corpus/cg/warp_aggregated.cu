// Warp-aggregated atomics: the active threads of a warp (a coalesced group)
// take one slot each from a counter, but only the group's rank-0 thread
// updates it, by the group's size; the others learn the first slot by a
// shuffle from rank 0 and add their own rank. The slots are distinct over
// the launch, as `atomicAdd(&count, 1)` tickets are.
//  * compact:            keeps the positive inputs at the aggregated slots:
//                        verified.
//  * compact_no_rank:    forgets to add the rank: every member of a group
//                        writes the group's first slot: racy.
//  * compact_wrong_lane: broadcasts from rank 1, which holds no slot: the
//                        value is unknown to the model: racy.
//  * compact_reset:      thread 0 of each block also resets the counter
//                        with a plain store: not a ticket counter (slots
//                        repeat), and the store races with the updates:
//                        racy.
// syncscope-args: --block-dim 128 --grid-dim 4
// expect-kernel: compact verified
// expect-kernel: compact_no_rank racy
// expect-kernel: compact_wrong_lane racy
// expect-kernel: compact_reset racy

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ int take_slot(int *count)
{
    cg::coalesced_group group = cg::coalesced_threads();
    int first = 0;
    if (group.thread_rank() == 0)
        first = atomicAdd(count, group.size());
    first = group.shfl(first, 0);
    return first + group.thread_rank();
}

__global__ void compact(const int *in, int *out, int *count, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int v = in[i];
        if (v > 0)
            out[take_slot(count)] = v;
    }
}

__device__ int group_slot(int *count)
{
    cg::coalesced_group group = cg::coalesced_threads();
    int first = 0;
    if (group.thread_rank() == 0)
        first = atomicAdd(count, group.size());
    return group.shfl(first, 0);
}

__global__ void compact_no_rank(const int *in, int *out, int *count)
{
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    if (v > 0)
        out[group_slot(count)] = v; //~ data-race
}

__device__ int slot_from_lane_one(int *count)
{
    cg::coalesced_group group = cg::coalesced_threads();
    int first = 0;
    if (group.thread_rank() == 0)
        first = atomicAdd(count, group.size());
    first = group.shfl(first, 1);
    return first + group.thread_rank();
}

__global__ void compact_wrong_lane(const int *in, int *out, int *count)
{
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    if (v > 0)
        out[slot_from_lane_one(count)] = v; //~ data-race
}

__global__ void compact_reset(const int *in, int *out, int *count)
{
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    if (v > 0)
        out[take_slot(count)] = v; //~ data-race
    if (threadIdx.x == 0)
        *count = 0; //~ data-race benign-race
}
