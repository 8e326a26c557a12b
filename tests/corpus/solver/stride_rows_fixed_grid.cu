// The rows of `stride_rows_any_grid.cu` on a fixed grid of 16 x 16
// blocks (a launch as the `dct8x8` sample's short kernels get it): 32-bit
// words of 16-bit pixels, a thread's eight rows `(blockIdx.y * 32 +
// threadIdx.z * 8) * stride` plus `i * (stride / 2)` words, the stride a
// parameter at least as wide as the grid's columns. Under a fixed grid the
// small-factor split also turns `blockIdx.y * stride` into one case per
// block, which hides what decides the cross-block queries: rows of
// different blocks lie at least a stride apart. The linear abstraction
// with the products' order facts is therefore also asked of the split
// that keeps the block products, and decides them (`unknown` at the
// budget before).
// syncscope-args: --block-dim 8,4,4 --grid-dim 16,16
// expect-kernel: words_by_rows_fixed_grid verified
// expect-kernel: words_by_rows_fixed_grid_overlapping_columns racy

__global__ void words_by_rows_fixed_grid(short *img, int stride)
{
    __requires(stride >= 32 * (int)gridDim.x);
    int lane = threadIdx.y * 8 + threadIdx.x;
    int row = blockIdx.y * 32 + threadIdx.z * 8;
    short *p = img + row * stride + blockIdx.x * 32 + lane * 2;
    if (lane < 16) {
        for (int i = 0; i < 8; i++)
            ((int *)p)[i * (stride / 2)] = ((int *)p)[i * (stride / 2)] + 1;
    }
}

// Blocks 16 pixels apart along x while a block's words span 32: the
// right half of each block's columns is the left half of its neighbour's.
__global__ void words_by_rows_fixed_grid_overlapping_columns(short *img, int stride)
{
    __requires(stride >= 32 * (int)gridDim.x);
    int lane = threadIdx.y * 8 + threadIdx.x;
    int row = blockIdx.y * 32 + threadIdx.z * 8;
    short *p = img + row * stride + blockIdx.x * 16 + lane * 2;
    if (lane < 16) {
        for (int i = 0; i < 8; i++)
            ((int *)p)[i * (stride / 2)] = ((int *)p)[i * (stride / 2)] + 1; //~ data-race
    }
}
