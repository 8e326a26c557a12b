// Pairs of 16-bit pixels moved as one 32-bit word through an `int *` view
// of a `short` image whose row stride is a parameter: a thread's eight
// rows are `(blockIdx.y * 32 + threadIdx.z * 8) * stride` plus
// `i * (stride / 2)` words. The stride multiplies thread indices and the
// loop counter, which made the race queries nonlinear; split over the
// few values of `threadIdx.z` and `i` they are linear in the stride.
// syncscope-args: --block-dim 8,4,4 --grid-dim 2,4
// expect-kernel: words_by_rows verified
// expect-kernel: words_by_half_rows racy

__global__ void words_by_rows(short *img, int stride)
{
    __requires(stride >= 64);
    int lane = threadIdx.y * 8 + threadIdx.x;
    int row = blockIdx.y * 32 + threadIdx.z * 8;
    short *p = img + row * stride + blockIdx.x * 32 + lane * 2;
    if (lane < 16) {
        for (int i = 0; i < 8; i++)
            ((int *)p)[i * (stride / 2)] = ((int *)p)[i * (stride / 2)] * 3;
    }
}

// A step of half a row: with a stride of 64, the second word row of the
// left block is the first word row of the right one.
__global__ void words_by_half_rows(short *img, int stride)
{
    __requires(stride >= 64);
    int lane = threadIdx.y * 8 + threadIdx.x;
    int row = blockIdx.y * 32 + threadIdx.z * 8;
    short *p = img + row * stride + blockIdx.x * 32 + lane * 2;
    if (lane < 16) {
        for (int i = 0; i < 8; i++)
            ((int *)p)[i * (stride / 4)] = ((int *)p)[i * (stride / 4)] * 3; //~ data-race
    }
}
