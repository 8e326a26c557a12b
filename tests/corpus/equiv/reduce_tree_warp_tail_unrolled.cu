// The block sum of reduce_tree_warp_tail.cu with the shared-memory steps
// written out one by one (a constant stride each, every one guarded by the
// block size it needs) and the warp's steps by a cooperative-groups tile:
// `tile.shfl_down(acc, d)` reads the register of lane `rank + d`.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define BLOCK 256
// expect-kernel: block_sum verified
__global__ void block_sum(float *out, const float *in, int n) {
    __requires(blockDim.x == BLOCK && blockDim.y == 1 && blockDim.z == 1);
    __requires(gridDim.y == 1 && gridDim.z == 1 && n >= 0);
    __shared__ float s[BLOCK];
    cg::thread_block block = cg::this_thread_block();
    unsigned int tid = threadIdx.x;
    unsigned int g = blockIdx.x * BLOCK + tid;
    float acc = g < n ? in[g] : 0.0f;
    s[tid] = acc;
    cg::sync(block);
    if (BLOCK >= 256 && tid < 128) {
        s[tid] = acc = acc + s[tid + 128];
    }
    cg::sync(block);
    if (BLOCK >= 128 && tid < 64) {
        s[tid] = acc = acc + s[tid + 64];
    }
    cg::sync(block);
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    if (block.thread_rank() < 32) {
        acc += s[tid + 32];
        for (int d = tile.size() / 2; d > 0; d /= 2) {
            acc += tile.shfl_down(acc, d);
        }
    }
    if (block.thread_rank() == 0) {
        out[blockIdx.x] = acc;
    }
}
