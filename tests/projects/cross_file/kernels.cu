// Kernels launched from another file of the project (launch.cu), whose
// values come from the callers of the host function around the launch.
// `rows`: launched by a host function taking the width, whose callers (all in
// launch.cu, no other file naming it) pass 64 and 128 for 64-thread
// blocks: race-free. `rows_named`: its host function is also named (and
// called with 16) in other.cpp, so no caller's value is bound: racy.
// `tiles`: a transpose whose grid is rounded up by a helper written as a
// conditional (`(a % b != 0) ? (a / b + 1) : (a / b)`) over unsigned
// sizes: the grid is tied to both sizes (race-free). `tiles_signed`: the
// same over `int` sizes, where a negative height rounds up to one block
// and, converted to unsigned in the guards, lets two threads meet
// (racy).
// expect-kernel: rows verified
// expect-kernel: rows_named racy
// expect-kernel: tiles verified
// expect-kernel: tiles_signed racy
#include <cuda_runtime.h>

#define EDGE 16

__global__ void rows(float *out, int width)
{
    out[blockIdx.x * width + threadIdx.x] = (float)blockIdx.x;
}

__global__ void rows_named(float *out, int width)
{
    out[blockIdx.x * width + threadIdx.x] = (float)blockIdx.x; //~ data-race
}

__global__ void tiles(unsigned *out, const unsigned *in, unsigned width, unsigned height)
{
    __shared__ unsigned tile[EDGE][EDGE + 1];
    unsigned x = blockIdx.x * EDGE + threadIdx.x;
    unsigned y = blockIdx.y * EDGE + threadIdx.y;
    if (x < width && y < height) {
        tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    }
    __syncthreads();
    x = blockIdx.y * EDGE + threadIdx.x;
    y = blockIdx.x * EDGE + threadIdx.y;
    if (x < height && y < width) {
        out[y * height + x] = tile[threadIdx.x][threadIdx.y];
    }
}

__global__ void tiles_signed(unsigned *out, const unsigned *in, int width, int height)
{
    __shared__ unsigned tile[EDGE][EDGE + 1];
    unsigned x = blockIdx.x * EDGE + threadIdx.x;
    unsigned y = blockIdx.y * EDGE + threadIdx.y;
    if (x < width && y < height) {
        tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    }
    __syncthreads();
    x = blockIdx.y * EDGE + threadIdx.x;
    y = blockIdx.x * EDGE + threadIdx.y;
    if (x < height && y < width) {
        out[y * height + x] = tile[threadIdx.x][threadIdx.y]; //~ data-race
    }
}
