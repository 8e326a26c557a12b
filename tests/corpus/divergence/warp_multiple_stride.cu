// A tile barrier inside a grid-stride loop: with the block a whole number of
// warps and the bound a multiple of 32, a warp's lanes leave the loop
// together (the bound `i + k * gridDim.x * blockDim.x < n` is a product of
// run-time values: decided by its linear abstraction, the products as
// unknowns and `blockDim.x` written as 32 times a whole number).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// expect-kernel: whole_warps verified
// expect-kernel: any_block divergent

__global__ void whole_warps(const int *in, int *count, int n) {
    __requires(blockDim.x % 32 == 0);
    __requires(blockDim.y == 1);
    __requires(blockDim.z == 1);
    __requires(gridDim.y == 1);
    __requires(gridDim.z == 1);
    __requires(n == 4096);
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        if (in[i] & 1) {
            atomicAdd(count, 1);
        }
        tile.sync(); //~ redundant-barrier
    }
}

// A block of any size: a warp straddles the bound.
__global__ void any_block(const int *in, int *count, int n) {
    __requires(blockDim.y == 1);
    __requires(blockDim.z == 1);
    __requires(gridDim.y == 1);
    __requires(gridDim.z == 1);
    __requires(n == 4096);
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        if (in[i] & 1) {
            atomicAdd(count, 1);
        }
        tile.sync(); //~ barrier-divergence
    }
}
