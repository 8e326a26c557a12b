// Item 5 of issue 19: a condition on a `__shared__` flag that one thread
// set before a barrier is the same for every thread of the block, so a
// barrier under it is not divergent (verified). Two racy twins: the flag
// written by every thread with its own value (a write-write race on the
// flag), and the flag read before the barrier that orders it (a
// write-read race on the flag).
// syncscope-args: --block-dim 256 --grid-dim 64
// expect-kernel: filter_active_tiles verified
// expect-kernel: filter_tiles_own_flag racy
// expect-kernel: filter_tiles_early_read racy

#define BLOCK 256
#define CHECK_FLAG(f) ((f) != 0)

__device__ int tile_is_active(const int *mask, int tile)
{
    return mask[tile];
}

__global__ void filter_active_tiles(float *out, const float *in, const int *mask)
{
    __shared__ int s_active;
    __shared__ float s_buf[BLOCK];
    const int gid = blockIdx.x * BLOCK + threadIdx.x;

    if (threadIdx.x == 0)
        s_active = tile_is_active(mask, blockIdx.x);
    __syncthreads();

    if (CHECK_FLAG(s_active)) {
        s_buf[threadIdx.x] = in[gid];
        __syncthreads();
        out[gid] = 0.5f * (s_buf[threadIdx.x] + s_buf[BLOCK - 1 - threadIdx.x]);
    }
}

__global__ void filter_tiles_own_flag(float *out, const float *in, const int *mask)
{
    __shared__ int s_active;
    __shared__ float s_buf[BLOCK];
    const int gid = blockIdx.x * BLOCK + threadIdx.x;

    s_active = mask[gid]; //~ data-race
    __syncthreads();

    if (CHECK_FLAG(s_active)) {
        s_buf[threadIdx.x] = in[gid];
        __syncthreads();
        out[gid] = 0.5f * (s_buf[threadIdx.x] + s_buf[BLOCK - 1 - threadIdx.x]);
    }
}

__global__ void filter_tiles_early_read(float *out, const float *in, const int *mask)
{
    __shared__ int s_active;
    __shared__ float s_buf[BLOCK];
    const int gid = blockIdx.x * BLOCK + threadIdx.x;

    if (threadIdx.x == 0)
        s_active = tile_is_active(mask, blockIdx.x); //~ data-race
    if (CHECK_FLAG(s_active)) { //~ data-race
        s_buf[threadIdx.x] = in[gid];
        __syncthreads();
        out[gid] = 0.5f * (s_buf[threadIdx.x] + s_buf[BLOCK - 1 - threadIdx.x]);
    }
}
