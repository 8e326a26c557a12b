// Host code of cross_file/kernels.cu.
#include <cuda_runtime.h>

#define EDGE 16

__global__ void rows(float *out, int width);
__global__ void rows_named(float *out, int width);
__global__ void tiles(unsigned *out, const unsigned *in, unsigned width, unsigned height);
__global__ void tiles_signed(unsigned *out, const unsigned *in, int width, int height);

static void launch_rows(float *out, int width)
{
    rows<<<8, 64>>>(out, width);
}

void run_rows(float *out)
{
    launch_rows(out, 64);
    launch_rows(out, 128);
}

void launch_named(float *out, int width)
{
    rows_named<<<8, 64>>>(out, width);
}

void run_named(float *out)
{
    launch_named(out, 64);
}

static unsigned div_up(unsigned a, unsigned b) { return (a % b != 0) ? (a / b + 1) : (a / b); }

static int div_up_signed(int a, int b) { return (a % b != 0) ? (a / b + 1) : (a / b); }

void transpose(unsigned *out, const unsigned *in, unsigned width, unsigned height)
{
    dim3 grid(div_up(width, EDGE), div_up(height, EDGE));
    dim3 threads(EDGE, EDGE);
    tiles<<<grid, threads>>>(out, in, width, height);
}

void transpose_signed(unsigned *out, const unsigned *in, int width, int height)
{
    dim3 grid(div_up_signed(width, EDGE), div_up_signed(height, EDGE));
    dim3 threads(EDGE, EDGE);
    tiles_signed<<<grid, threads>>>(out, in, width, height);
}
