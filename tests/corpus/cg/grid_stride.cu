// A grid group's rank and size span the whole grid: `grid.thread_rank()` is
// the thread's place in the launch (blocks x fastest, then y, then z) and
// `grid.size()` the number of threads, so a grid-stride loop over them
// visits every index once.
//  * scale_all:       `for (i = grid.thread_rank(); i < n; i += grid.size())`
//                     on a two-dimensional grid: verified.
//  * scale_by_blocks: strides by `grid.num_blocks()` instead: threads meet
//                     on later indices: racy.
// syncscope-args: --block-dim 64 --grid-dim 4,3
// expect-kernel: scale_all verified
// expect-kernel: scale_by_blocks racy

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void scale_all(float *data, float factor, int n)
{
    cg::grid_group grid = cg::this_grid();
    for (int i = grid.thread_rank(); i < n; i += grid.size())
        data[i] = data[i] * factor;
}

__global__ void scale_by_blocks(float *data, float factor, int n)
{
    cg::grid_group grid = cg::this_grid();
    for (int i = grid.thread_rank(); i < n; i += grid.num_blocks())
        data[i] = data[i] * factor; //~ data-race
}
