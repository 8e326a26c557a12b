// `cuda::barrier` completing `cuda::memcpy_async` copies: the block copies a
// tile into shared memory with the barrier as the completion object; the
// copy lands by the `arrive_and_wait()` of its phase, which every thread of
// the block takes part in (the barrier was initialised with the block's
// size), so it also orders the block like `__syncthreads()`.
//  * tile_sum:           copy, arrive_and_wait, read a neighbour's element,
//                        arrive_and_wait before the next copy: verified.
//  * tile_sum_early:     reads the tile before the arrive_and_wait: racy.
//  * tile_sum_partial:   a barrier initialised for one warp is not a block
//                        barrier: not-verified, named.
// syncscope-args: --block-dim 256 --grid-dim 8
// expect-kernel: tile_sum verified
// expect-kernel: tile_sum_early racy
// expect-kernel: tile_sum_partial not-verified

#include <cooperative_groups.h>
#include <cuda/barrier>
namespace cg = cooperative_groups;

#define TILE 256

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

__global__ void tile_sum(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float tile[TILE];
    __shared__ block_barrier bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0)
        init(&bar, block.size());
    block.sync();
    float acc = 0.0f;
    for (int t = 0; t < tiles; ++t) {
        cuda::memcpy_async(block, tile, in + (blockIdx.x * tiles + t) * TILE, sizeof(float) * TILE, bar);
        bar.arrive_and_wait();
        acc += tile[(block.thread_rank() + 1) % TILE];
        bar.arrive_and_wait();
    }
    out[blockIdx.x * TILE + block.thread_rank()] = acc;
}

__global__ void tile_sum_early(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ float tile[TILE];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0)
        init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, tile, in + blockIdx.x * TILE, sizeof(float) * TILE, bar); //~ data-race
    float first = tile[(block.thread_rank() + 1) % TILE]; //~ data-race
    bar.arrive_and_wait();
    out[blockIdx.x * TILE + block.thread_rank()] = first;
}

__global__ void tile_sum_partial(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ float tile[TILE];
    __shared__ block_barrier bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0)
        init(&bar, 32);
    block.sync();
    tile[block.thread_rank()] = in[blockIdx.x * TILE + block.thread_rank()];
    bar.arrive_and_wait(); //~ not-verified
    out[blockIdx.x * TILE + block.thread_rank()] = tile[(block.thread_rank() + 1) % TILE];
}
