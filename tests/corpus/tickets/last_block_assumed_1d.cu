// The last-block pattern when only an assumption makes the block
// one-dimensional: the kernel reads a group's rank (so the launch may be
// any shape), but `__requires(blockDim.y == 1)` and `blockDim.z == 1` (as a
// launch site's facts say) leave one thread with `threadIdx.x == 0` per
// block, so one increment per block.
//  * sum_last_assumed_1d:   verified (the pattern modelled as in
//                           `last_block.cu`).
//  * sum_last_assumed_racy: the same, but every thread of the last block
//                           writes the total: racy.
//  * sum_last_in_branch:    the fence, the increment, the barrier after it
//                           and the last block's pass all sit under
//                           `if (gridDim.x > 1)` (one value for the whole
//                           grid): the barrier still orders the increment
//                           before every thread's reads: verified.
//  * sum_last_even_barrier: the barrier after the increment runs only in
//                           even blocks: the last block's other threads
//                           may read the partials unordered: racy.
// syncscope-args: --grid-dim 16
// expect-kernel: sum_last_assumed_1d verified
// expect-kernel: sum_last_assumed_racy racy
// expect-kernel: sum_last_in_branch verified
// expect-kernel: sum_last_even_barrier racy

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ unsigned int blocks_done = 0;

__global__ void sum_last_assumed_1d(float *partial, float *total, const float *in)
{
    __requires(blockDim.y == 1);
    __requires(blockDim.z == 1);
    cg::thread_block cta = cg::this_thread_block();
    __shared__ bool is_last;
    const unsigned tid = threadIdx.x;
    if (tid == 0) {
        partial[blockIdx.x] = in[blockIdx.x * cta.size()];
        __threadfence();
        unsigned ticket = atomicInc(&blocks_done, gridDim.x);
        is_last = (ticket == gridDim.x - 1);
    }
    cg::sync(cta);
    if (is_last && cta.thread_rank() == 0) {
        float s = 0.0f;
        for (unsigned b = 0; b < gridDim.x; ++b)
            s += partial[b];
        *total = s;
        blocks_done = 0;
    }
}

__global__ void sum_last_assumed_racy(float *partial, float *total, const float *in)
{
    __requires(blockDim.y == 1);
    __requires(blockDim.z == 1);
    cg::thread_block cta = cg::this_thread_block();
    __shared__ bool is_last;
    const unsigned tid = threadIdx.x;
    if (tid == 0) {
        partial[blockIdx.x] = in[blockIdx.x * cta.size()];
        __threadfence();
        unsigned ticket = atomicInc(&blocks_done, gridDim.x);
        is_last = (ticket == gridDim.x - 1);
    }
    cg::sync(cta);
    if (is_last) {
        float s = (float)cta.thread_rank();
        for (unsigned b = 0; b < gridDim.x; ++b)
            s += partial[b];
        *total = s; //~ data-race
    }
}

__global__ void sum_last_in_branch(float *partial, float *total, const float *in)
{
    __requires(blockDim.y == 1);
    __requires(blockDim.z == 1);
    cg::thread_block cta = cg::this_thread_block();
    const unsigned tid = threadIdx.x;
    if (tid == 0)
        partial[blockIdx.x] = in[blockIdx.x * cta.size()];
    if (gridDim.x > 1) {
        __shared__ bool is_last;
        __threadfence();
        if (tid == 0) {
            unsigned ticket = atomicInc(&blocks_done, gridDim.x);
            is_last = (ticket == gridDim.x - 1);
        }
        cg::sync(cta);
        if (is_last && tid < gridDim.x)
            total[tid] = partial[tid];
    }
}

__global__ void sum_last_even_barrier(float *partial, float *total, const float *in)
{
    __requires(blockDim.y == 1);
    __requires(blockDim.z == 1);
    cg::thread_block cta = cg::this_thread_block();
    const unsigned tid = threadIdx.x;
    __shared__ bool is_last;
    if (tid == 0) {
        partial[blockIdx.x] = in[blockIdx.x * cta.size()]; //~ data-race
        __threadfence();
        unsigned ticket = atomicInc(&blocks_done, gridDim.x);
        is_last = (ticket == gridDim.x - 1); //~ data-race
    }
    if (blockIdx.x % 2 == 0)
        cg::sync(cta);
    if (is_last && tid < gridDim.x) total[tid] = partial[tid]; //~ data-race
}
