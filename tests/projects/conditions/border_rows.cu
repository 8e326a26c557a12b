// Kernels of a library whose host code is elsewhere: no launch of them is
// visible, so their parameters are symbolic (any value an `int` holds) and
// a witness may use values no caller passes. Each race states its
// condition on the parameters (with `--fixes`):
// * `clamp_row` clamps each thread's column into a row of `width` cells:
//   with fewer than 16 cells (or none), threads share the last cell, each
//   adding its index (races only when `width < 16`; the fix: `width >= 16`);
// * `clamp_row_assumed` is the same kernel with that assumption written the
//   way the quick-fix writes it (nvcc compiles it): verified;
// * `last_writer` has every thread write the one `__shared__` cell: racy
//   whatever `width` is;
// * `clamp_row_narrow` is `clamp_row` under its own `width < 8`: it races
//   under every width its assumption allows, so no condition is stated
//   and no assumption offered (one would leave no launch at all).
// syncscope-args: --grid-dim 64
// expect-kernel: clamp_row racy
// expect-kernel: clamp_row_assumed verified
// expect-kernel: last_writer racy
// expect-kernel: clamp_row_narrow racy

__global__ void clamp_row(float *out, const float *in, int width)
{
    __shared__ float row[16];
    int tx = threadIdx.x;
    if (tx < 16 && threadIdx.y == 0 && threadIdx.z == 0) {
        int col = max(0, min(tx, width - 1));
        row[col] = in[blockIdx.x * width + col] + tx; //~ data-race
    }
    __syncthreads();
    if (tx < 16 && threadIdx.y == 0 && threadIdx.z == 0)
        out[blockIdx.x * 16 + tx] = row[15 - tx];
}

__global__ void clamp_row_assumed(float *out, const float *in, int width)
{
#ifdef __SYNCSCOPE__
    __requires(width >= 16);
#endif
    __shared__ float row[16];
    int tx = threadIdx.x;
    if (tx < 16 && threadIdx.y == 0 && threadIdx.z == 0) {
        int col = max(0, min(tx, width - 1));
        row[col] = in[blockIdx.x * width + col];
    }
    __syncthreads();
    if (tx < 16 && threadIdx.y == 0 && threadIdx.z == 0)
        out[blockIdx.x * 16 + tx] = row[15 - tx];
}

__global__ void last_writer(int *out, int width)
{
    __shared__ int widest;
    widest = threadIdx.x; //~ data-race
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
        out[blockIdx.x] = widest + width;
}

__global__ void clamp_row_narrow(float *out, const float *in, int width)
{
#ifdef __SYNCSCOPE__
    __requires(width < 8);
#endif
    __shared__ float row[16];
    int tx = threadIdx.x;
    if (tx < 16 && threadIdx.y == 0 && threadIdx.z == 0) {
        int col = max(0, min(tx, width - 1));
        row[col] = in[blockIdx.x * width + col] + tx; //~ data-race
    }
    __syncthreads();
    if (tx < 16 && threadIdx.y == 0 && threadIdx.z == 0)
        out[blockIdx.x * 16 + tx] = row[15 - tx];
}
