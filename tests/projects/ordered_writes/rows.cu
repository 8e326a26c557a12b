// Kernels whose row width the host code (host.cu) sets in a local written
// after its declaration: a plain write (`w = 128;`, `w *= 4;`) that is a
// statement of the launch's own block, outside every loop, holds from there
// to the next write, so the launch passes its value (rows of 64 threads:
// at least 64 wide is race-free). A write under a condition, through a
// pointer, in a lambda or in a `switch` body a `case` may jump past leaves
// the width unknown (racy).
// expect-kernel: rows_rewritten verified
// expect-kernel: rows_scaled verified
// expect-kernel: rows_narrowed racy
// expect-kernel: rows_maybe racy
// expect-kernel: rows_by_pointer racy
// expect-kernel: rows_by_lambda racy
// expect-kernel: rows_switched racy

#define ROW_THREADS 64

__global__ void rows_rewritten(int *out, int w)
{
    out[blockIdx.x * w + threadIdx.x] = threadIdx.x;
}

__global__ void rows_scaled(int *out, int w)
{
    out[blockIdx.x * w + threadIdx.x] = threadIdx.x;
}

__global__ void rows_narrowed(int *out, int w)
{
    out[blockIdx.x * w + threadIdx.x] = threadIdx.x; //~ data-race
}

__global__ void rows_maybe(int *out, int w)
{
    out[blockIdx.x * w + threadIdx.x] = threadIdx.x; //~ data-race
}

__global__ void rows_by_pointer(int *out, int w)
{
    out[blockIdx.x * w + threadIdx.x] = threadIdx.x; //~ data-race
}

__global__ void rows_by_lambda(int *out, int w)
{
    out[blockIdx.x * w + threadIdx.x] = threadIdx.x; //~ data-race
}

__global__ void rows_switched(int *out, int w)
{
    out[blockIdx.x * w + threadIdx.x] = threadIdx.x; //~ data-race
}
