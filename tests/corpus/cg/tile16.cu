// `tiled_partition<16>`: a tile's `sync()` orders the 16 threads of that
// tile and nobody else, so a tile may exchange data through shared memory
// within itself, but not with the other half of its warp.
//  * rotate_in_tile:      each thread reads its tile neighbour's slot after
//                         `tile.sync()`: verified.
//  * rotate_across_tiles: each thread reads the slot 16 places further,
//                         which another tile wrote; `tile.sync()` does not
//                         order the two tiles: racy (and no redundancy
//                         claim: a racy kernel proves none).
//  * rotate_across_block: the same exchange after `cg::synchronize(block)`,
//                         which orders the whole block: verified.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: rotate_in_tile verified
// expect-kernel: rotate_across_tiles racy
// expect-kernel: rotate_across_block verified

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void rotate_in_tile(const int *in, int *out)
{
    __shared__ int slots[128];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    unsigned base = tile.meta_group_rank() * tile.size();
    unsigned lane = tile.thread_rank();
    slots[base + lane] = in[blockIdx.x * 128 + base + lane];
    tile.sync();
    out[blockIdx.x * 128 + base + lane] = slots[base + (lane + 1) % 16];
}

__global__ void rotate_across_tiles(const int *in, int *out)
{
    __shared__ int slots[128];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    unsigned rank = block.thread_rank();
    slots[rank] = in[blockIdx.x * 128 + rank]; //~ data-race
    tile.sync();
    out[blockIdx.x * 128 + rank] = slots[(rank + 16) % 128]; //~ data-race
}

__global__ void rotate_across_block(const int *in, int *out)
{
    __shared__ int slots[128];
    cg::thread_block block = cg::this_thread_block();
    unsigned rank = block.thread_rank();
    slots[rank] = in[blockIdx.x * 128 + rank];
    cg::synchronize(block);
    out[blockIdx.x * 128 + rank] = slots[(rank + 16) % 128];
}
