// Cooperative groups.  block.sync() and cg::sync(block) are block barriers;
// grid.sync() orders every thread of the grid, so the second phase may read
// what another BLOCK wrote in the first.  Each barrier here is needed.
// `grid_phases_block_sync` uses only a block barrier between the phases: it
// orders the shared tile, but the last thread of block b reads data[g + 1],
// which thread 0 of block b+1 writes unordered (racy).
// syncscope-args: --block-dim 256 --grid-dim 32
// expect-kernel: block_group_sync verified
// expect-kernel: free_function_sync verified
// expect-kernel: grid_phases verified
// expect-kernel: grid_phases_block_sync racy

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void block_group_sync(float *out, const float *in)
{
    cg::thread_block block = cg::this_thread_block();
    __shared__ float s[256];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    s[tid] = in[gid];
    block.sync();
    out[gid] = s[255 - tid];
}

__global__ void free_function_sync(float *out, const float *in)
{
    cg::thread_block block = cg::this_thread_block();
    __shared__ float s[256];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    s[tid] = in[gid];
    cg::sync(block);
    out[gid] = s[(tid + 1) % 256];
}

__global__ void grid_phases(float *data, float *out, int n)
{
    cg::grid_group grid = cg::this_grid();
    int g = blockIdx.x * blockDim.x + threadIdx.x;

    if (g < n)
        data[g] = data[g] * 2.0f;
    grid.sync();
    if (g + 1 < n)
        out[g] = data[g] + data[g + 1];
}

__global__ void grid_phases_block_sync(float *data, float *out, int n)
{
    __shared__ float s[256];
    int tid = threadIdx.x;
    int g = blockIdx.x * blockDim.x + tid;

    float v = g < n ? data[g] * 2.0f : 0.0f;
    s[tid] = v;
    if (g < n)
        data[g] = v; //~ data-race
    __syncthreads();
    float right = tid + 1 < blockDim.x ? s[tid + 1] : data[g + 1]; //~ data-race
    if (g + 1 < n)
        out[g] = v + right;
}
