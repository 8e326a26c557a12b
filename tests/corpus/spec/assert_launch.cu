// GPUVerify's `__requires` and `__assert`, written as its users write them.
// `__requires` is an assumption: the verdict holds only for launches and
// parameters that satisfy it (the report lists them).  `__assert` is
// checked: it holds when no thread can falsify it.
//  * scale_rows:        each block scales its own row; the rows are `pitch`
//                       apart and `pitch >= 64` is required: verified, and
//                       both assertions hold.
//  * scale_rows_overlap: only `pitch > 0` is required, so two blocks' rows
//                       overlap (pitch 1): racy.
//  * scale_rows_bad_assert: the assertion claims every index is below
//                       4 * 64, which fails once pitch > 64: assertion-failed
//                       (a witness: one thread, its block and pitch).
//--blockDim=[64,1] --gridDim=[4,1]
// syncscope-args: --block-dim 64 --grid-dim 4
// expect-kernel: scale_rows verified
// expect-kernel: scale_rows_overlap racy
// expect-kernel: scale_rows_bad_assert assertion-failed

#include <cuda.h>

__global__ void scale_rows(float *rows, int pitch, float factor)
{
    __requires(pitch >= 64);
    int row = blockIdx.x;
    int col = threadIdx.x;
    __assert(col < pitch);
    __assert(__implies(row > 0, row * pitch + col >= pitch));
    rows[row * pitch + col] *= factor;
}

__global__ void scale_rows_overlap(float *rows, int pitch, float factor)
{
    __requires(pitch > 0);
    int row = blockIdx.x;
    int col = threadIdx.x;
    rows[row * pitch + col] *= factor; //~ data-race
}

__global__ void scale_rows_bad_assert(float *rows, int pitch, float factor)
{
    __requires(pitch >= 64);
    int row = blockIdx.x;
    int col = threadIdx.x;
    __assert(row * pitch + col < 4 * 64); //~ assertion
    rows[row * pitch + col] *= factor;
}
