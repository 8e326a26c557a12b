// Default arguments of the host function around a launch: a call that
// leaves the width out passes the default. `rows_default` is launched
// with 64-thread blocks by a function whose width defaults to 64, called
// without it and with 128 (race-free); `rows_default_narrow`'s default is
// 32 under 64-thread blocks (racy).
// expect-kernel: rows_default verified
// expect-kernel: rows_default_narrow racy
#include <cuda_runtime.h>

#define ROW 64

__global__ void rows_default(float *out, int width)
{
    out[blockIdx.x * width + threadIdx.x] = (float)blockIdx.x;
}

__global__ void rows_default_narrow(float *out, int width)
{
    out[blockIdx.x * width + threadIdx.x] = (float)blockIdx.x; //~ data-race
}

static void fill_rows(float *out, int width = ROW)
{
    rows_default<<<8, 64>>>(out, width);
}

static void fill_narrow(float *out, int width = ROW / 2)
{
    rows_default_narrow<<<8, 64>>>(out, width);
}

void run_defaults(float *out)
{
    fill_rows(out);
    fill_rows(out, 2 * ROW);
    fill_narrow(out);
}
