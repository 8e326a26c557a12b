// The warp sum with a cooperative-groups tile of 32 threads:
// `tile.shfl_down(acc, d)` reads lane `rank + d` of the tile.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// expect-kernel: warp_sum verified
__global__ void warp_sum(float *out, const float *in) {
    __requires(blockDim.x == 32 && blockDim.y == 1 && blockDim.z == 1);
    __requires(gridDim.y == 1 && gridDim.z == 1);
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    float acc = in[blockIdx.x * 32 + threadIdx.x];
    for (int d = tile.size() / 2; d > 0; d /= 2) {
        acc += tile.shfl_down(acc, d);
    }
    if (tile.thread_rank() == 0) {
        out[blockIdx.x] = acc;
    }
}
