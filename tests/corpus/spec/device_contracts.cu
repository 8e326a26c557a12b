// Contracts of `__device__` functions.  Syncscope inlines device functions,
// so a callee's `__requires` is a claim about every call site and is
// checked there (assuming it would hide a caller that breaks it); its
// `__ensures` needs no checking for race freedom and is reported as
// neither assumed nor checked.  `__assume` in the kernel is an assumption.
//  * stencil_rows:      the helper requires `col < 64`; every caller passes
//                       threadIdx.x of a 64-thread block: verified.
//  * stencil_rows_wide: the same helper called with columns up to 95: the
//                       precondition fails for thread 32 (an `assertion`
//                       finding at the `__requires`, reported in the
//                       callee), and the rows of neighbouring blocks
//                       overlap: racy (a race wins over a failed assertion).
//  * stencil_enabled:   `__enabled()` is the current thread's path
//                       condition: inside `if (col < 32)` it implies
//                       `col < 32`: verified.
//--blockDim=64 --gridDim=8
// syncscope-args: --block-dim 64 --grid-dim 8
// expect-kernel: stencil_rows verified
// expect-kernel: stencil_rows_wide racy
// expect-kernel: stencil_enabled verified

__device__ void smooth_cell(float *row, const float *src, int col)
{
    __requires(col >= 0 && col < 64); //~ assertion
    __ensures(__return_val_int() == 0);
    row[col] = 0.25f * src[col] + 0.5f * src[col + 1] + 0.25f * src[col + 2]; //~ data-race
}

__global__ void stencil_rows(float *dst, const float *src, int width)
{
    __assume(width == 66);
    smooth_cell(dst + blockIdx.x * 64, src + blockIdx.x * width, threadIdx.x);
}

__global__ void stencil_rows_wide(float *dst, const float *src, int width)
{
    __assume(width == 130);
    int col = threadIdx.x + (threadIdx.x >= 32 ? 32 : 0);
    smooth_cell(dst + blockIdx.x * 64, src + blockIdx.x * width, col);
}

__global__ void stencil_enabled(float *dst, const float *src)
{
    int col = threadIdx.x;
    if (col < 32) {
        __assert(__implies(__enabled(), col < 32));
        dst[blockIdx.x * 32 + col] = src[col];
    }
}
