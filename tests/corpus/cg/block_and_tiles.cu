// Cooperative groups as the CUDA programming guide writes them: a block
// reduction in shared memory ordered by `block.sync()`, finished by a
// 32-thread tile with register shuffles (no memory, no barrier needed).
//  * block_sum:        verified.
//  * block_sum_nosync: the tree loop lost its `block.sync()`: racy.
//  * block_sum_tile_sync: the tree's last levels use `tile.sync()` of a
//                      32-thread tile: it orders only that tile's threads,
//                      which is enough once only threads 0..31 work, and not
//                      before (thread 40 reads what thread 8 of another tile
//                      wrote at the first level): racy.
// syncscope-args: --block-dim 256 --grid-dim 64
// expect-kernel: block_sum verified
// expect-kernel: block_sum_nosync racy
// expect-kernel: block_sum_tile_sync racy

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void block_sum(const float *in, float *out)
{
    __shared__ float partial[256];
    cg::thread_block block = cg::this_thread_block();
    unsigned rank = block.thread_rank();
    partial[rank] = in[block.group_index().x * block.size() + rank];
    block.sync();
    for (unsigned s = block.size() / 2; s >= 32; s >>= 1) {
        if (rank < s)
            partial[rank] += partial[rank + s];
        block.sync();
    }
    if (rank < 32) {
        cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
        float v = partial[rank];
        for (int offset = tile.size() / 2; offset > 0; offset /= 2)
            v += tile.shfl_down(v, offset);
        if (tile.thread_rank() == 0)
            out[block.group_index().x] = v;
    }
}

__global__ void block_sum_nosync(const float *in, float *out)
{
    __shared__ float partial[256];
    cg::thread_block block = cg::this_thread_block();
    unsigned rank = block.thread_rank();
    partial[rank] = in[block.group_index().x * block.size() + rank];
    block.sync();
    for (unsigned s = block.size() / 2; s >= 32; s >>= 1) {
        if (rank < s)
            partial[rank] += partial[rank + s]; //~ data-race
    }
    if (rank < 32) {
        auto tile = cg::tiled_partition<32>(block);
        float v = partial[rank];
        for (int offset = tile.size() / 2; offset > 0; offset /= 2)
            v += tile.shfl_down(v, offset);
        if (tile.thread_rank() == 0)
            out[block.group_index().x] = v;
    }
}

__global__ void block_sum_tile_sync(const float *in, float *out)
{
    __shared__ float partial[256];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    unsigned rank = block.thread_rank();
    partial[rank] = in[block.group_index().x * block.size() + rank];
    block.sync();
    for (unsigned s = block.size() / 2; s > 0; s >>= 1) {
        if (rank < s)
            partial[rank] += partial[rank + s]; //~ data-race
        tile.sync();
    }
    if (rank == 0)
        out[block.group_index().x] = partial[0];
}
