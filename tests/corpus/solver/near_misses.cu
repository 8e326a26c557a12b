// Near misses of the exact index reasoning of issue 20 (verify/affine.rs):
// each kernel is one step away from an injective index, and races. The
// pre-pass must leave every one of them to the solver, which finds the
// race with a witness that replays.
// - `row_guard_off_by_one`: `x <= w` lets x == w reach the next row.
// - `warp_stride_too_small`: warps of 32 lanes placed 16 apart overlap.
// - `grid_stride_by_blocks`: stepping by gridDim.x revisits other threads' cells
//   (each writes its own thread index there).
// - `y_ignored`: a 2-D block whose threadIdx.y the index forgets.
// expect-kernel: row_guard_off_by_one racy
// expect-kernel: warp_stride_too_small racy
// expect-kernel: grid_stride_by_blocks racy
// expect-kernel: y_ignored racy

__global__ void row_guard_off_by_one(float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= w && y < h)
        out[y * w + x] = (float)x; //~ data-race
}

__global__ void warp_stride_too_small(float *out)
{
    __shared__ float slots[1024];
    int tid = threadIdx.x;
    slots[(tid >> 5) * 16 + (tid & 31)] = out[tid]; //~ data-race
}

__global__ void grid_stride_by_blocks(int n, float *out)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x)
        out[i] = (float)threadIdx.x; //~ data-race
}

__global__ void y_ignored(float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.y < blockDim.y)
        out[i] = 2.0f * threadIdx.y; //~ data-race
}
