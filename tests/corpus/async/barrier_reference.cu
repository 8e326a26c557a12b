// A `cuda::barrier` handed to a device function by reference is the
// block's barrier object itself: its split `arrive()` / `wait(token)` phase
// in the helper orders the block as in the kernel.
//  * warp_sums:        warp leaders store their warp's sum, the helper's
//                      phase separates the stores from warp 0's reads:
//                      verified.
//  * warp_sums_early:  the helper reads before its `wait`: racy.
// syncscope-args: --block-dim 128 --grid-dim 4
// expect-kernel: warp_sums verified
// expect-kernel: warp_sums_early racy

#include <cooperative_groups.h>
#include <cuda/barrier>
namespace cg = cooperative_groups;

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

__device__ void publish(block_barrier &phase, float *sums, float mine, float *out)
{
    int warp = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0)
        sums[warp] = mine;
    auto token = phase.arrive();
    phase.wait(std::move(token));
    if (threadIdx.x < 4)
        out[blockIdx.x * 4 + threadIdx.x] = sums[threadIdx.x];
}

__global__ void warp_sums(const float *in, float *out)
{
    __shared__ float sums[4];
    __shared__ block_barrier bar;
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    publish(bar, sums, in[blockIdx.x * blockDim.x + threadIdx.x], out);
}

__device__ void publish_early(block_barrier &phase, float *sums, float mine, float *out)
{
    int warp = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0)
        sums[warp] = mine; //~ data-race
    auto token = phase.arrive();
    float first = sums[(threadIdx.x + 1) % 4]; //~ data-race
    phase.wait(std::move(token));
    out[blockIdx.x * blockDim.x + threadIdx.x] = first;
}

__global__ void warp_sums_early(const float *in, float *out)
{
    __shared__ float sums[4];
    __shared__ block_barrier bar;
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    publish_early(bar, sums, in[blockIdx.x * blockDim.x + threadIdx.x], out);
}
