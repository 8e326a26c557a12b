// A 64-thread tile (`cg::experimental::tiled_partition<64>`, CUDA 11.1+)
// spans two warps; the model knows tiles of 1..32 threads.  Its `sync()` is
// reported `not-verified`, and stands in the model for a barrier that never
// creates a race the real one would prevent (no false race is reported).
// syncscope-args: --block-dim 128 --grid-dim 4
// expect-kernel: rotate_in_big_tile not-verified

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void rotate_in_big_tile(int *out)
{
    __shared__ int s[128];
    cg::thread_block block = cg::this_thread_block();
    auto tile = cg::experimental::tiled_partition<64>(block);
    unsigned rank = block.thread_rank();
    s[rank] = rank;
    tile.sync(); //~ not-verified
    out[blockIdx.x * 128 + rank] = s[(rank + 1) % 64 + (rank / 64) * 64];
}
