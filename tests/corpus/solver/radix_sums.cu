// Tiles written several rows per thread into a row-major matrix of symbolic
// width `w`: the cell is `col + row * w + i * w`, where the radix `w`
// multiplies two terms of one sum (the thread's row and the loop's rows).
// Grouped by `w` the sum is `(row + i) * w + col` with `col < w` (the
// guard), so equal cells have equal rows and columns.
// syncscope-args: --block-dim 32,4
// expect-kernel: rows_by_stride verified
// expect-kernel: rows_by_short_stride racy

__global__ void rows_by_stride(float *out, const float *in, int w)
{
    int col = blockIdx.x * 32 + threadIdx.x;
    int row = blockIdx.y * 32 + threadIdx.y;
    if (col < w) {
        for (int i = 0; i < 32; i += 4)
            out[col + row * w + i * w] = in[col + row * w + i * w] * 2.0f;
    }
}

// Steps of 2 rows for 4 rows of threads: thread row 2 at step 0 and thread
// row 0 at step 2 write one cell (each adding its own thread row).
__global__ void rows_by_short_stride(float *out, const float *in, int w)
{
    int col = blockIdx.x * 32 + threadIdx.x;
    int row = blockIdx.y * 32 + threadIdx.y;
    if (col < w) {
        for (int i = 0; i < 32; i += 2)
            out[col + row * w + i * w] = in[col + row * w + i * w] * 2.0f + threadIdx.y; //~ data-race
    }
}
