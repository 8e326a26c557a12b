// Pairs of 16-bit pixels moved as one 32-bit word through an `int *` view
// of a `short` image whose row stride is a parameter, on a grid of any
// size: a thread's eight rows are `(blockIdx.y * 32 + threadIdx.z * 8) *
// stride` plus `i * (stride / 2)` words. Split over the few values of
// `threadIdx.z` and `i`, what stays nonlinear is `blockIdx.y * stride` of
// two blocks. Rows of different blocks lie at least a stride apart, and a
// row's columns (`32 * gridDim.x` pixels) fit in the stride, so different
// rows never meet and equal rows compare their columns: the linear
// abstraction with the products' order facts decides it (`unknown` at the
// budget before).
// syncscope-args: --block-dim 8,4,4
// expect-kernel: words_by_rows_any_grid verified
// expect-kernel: words_by_rows_narrow_stride racy

__global__ void words_by_rows_any_grid(short *img, int stride)
{
    __requires(stride >= 32 * (int)gridDim.x);
    int lane = threadIdx.y * 8 + threadIdx.x;
    int row = blockIdx.y * 32 + threadIdx.z * 8;
    short *p = img + row * stride + blockIdx.x * 32 + lane * 2;
    if (lane < 16) {
        for (int i = 0; i < 8; i++)
            ((int *)p)[i * (stride / 2)] = ((int *)p)[i * (stride / 2)] * 3;
    }
}

// A stride of half the columns: the right block's first row is the left
// block's second row (with two blocks along x and a stride of 32 pixels).
__global__ void words_by_rows_narrow_stride(short *img, int stride)
{
    __requires(stride >= 16 * (int)gridDim.x);
    int lane = threadIdx.y * 8 + threadIdx.x;
    int row = blockIdx.y * 32 + threadIdx.z * 8;
    short *p = img + row * stride + blockIdx.x * 32 + lane * 2;
    if (lane < 16) {
        for (int i = 0; i < 8; i++)
            ((int *)p)[i * (stride / 2)] = ((int *)p)[i * (stride / 2)] * 3; //~ data-race
    }
}
