// `grid.sync()` of a cooperative launch orders every thread of the grid;
// `cg::reduce` and tile shuffles are register operations.
//  * two_phase:        every block writes its partial sum, the grid
//                      synchronises, then block 0 adds them up: verified.
//  * two_phase_nogrid: the same with `block.sync()` in place of
//                      `grid.sync()`: block 0 reads the other blocks'
//                      partial sums unordered: racy (no redundancy claim
//                      for the block barrier: that is a proof only a
//                      kernel that verifies can give).
//  * tile_reduce:      each 32-thread tile reduces with `cg::reduce` and
//                      its lane 0 adds the result atomically: verified.
//  * tile_reduce_store: lane 0 of every tile stores to the block's one
//                      cell instead: racy.
// syncscope-args: --block-dim 256 --grid-dim 16
// expect-kernel: two_phase verified
// expect-kernel: two_phase_nogrid racy
// expect-kernel: tile_reduce verified
// expect-kernel: tile_reduce_store racy

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__device__ float block_partial(const float *in)
{
    cg::thread_block block = cg::this_thread_block();
    auto tile = cg::tiled_partition<32>(block);
    float v = in[block.group_index().x * block.size() + block.thread_rank()];
    return cg::reduce(tile, v, cg::plus<float>());
}

__global__ void two_phase(const float *in, float *partials, float *total)
{
    cg::grid_group grid = cg::this_grid();
    float v = block_partial(in);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = v;
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        float sum = 0.0f;
        for (int b = 0; b < gridDim.x; ++b)
            sum += partials[b];
        *total = sum;
    }
}

__global__ void two_phase_nogrid(const float *in, float *partials, float *total)
{
    cg::thread_block block = cg::this_thread_block();
    float v = block_partial(in);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = v; //~ data-race
    block.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        float sum = 0.0f;
        for (int b = 0; b < gridDim.x; ++b)
            sum += partials[b]; //~ data-race
        *total = sum;
    }
}

__global__ void tile_reduce(const float *in, float *block_sums)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    float v = in[blockIdx.x * 256 + block.thread_rank()];
    float s = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0)
        atomicAdd(&block_sums[blockIdx.x], s);
}

__global__ void tile_reduce_store(const float *in, float *block_sums)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    float v = in[blockIdx.x * 256 + block.thread_rank()];
    float s = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0)
        block_sums[blockIdx.x] = s; //~ data-race
}
