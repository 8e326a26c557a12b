// Host code of host_while/kernels.cu.
#include <cuda_runtime.h>

__global__ void spread_tested(int *cells, unsigned stride);
__global__ void spread_halved_first(int *cells, unsigned stride);
__global__ void spread_aliased(int *cells, unsigned stride);
__global__ void spread_global(int *cells, unsigned stride);
__global__ void spread_global_helper(int *cells, unsigned stride);

// A level kept in a global, which helpers may write.
static unsigned g_level;

static void quarter_level()
{
    g_level /= 4;
}

static void shrink(unsigned *s)
{
    *s = 0;
}

void spread_levels(int *cells, unsigned width)
{
    unsigned stride = width;
    while (stride > 0) {
        spread_tested<<<1, 64>>>(cells, stride);
        stride >>= 1;
    }

    unsigned step = width;
    while (step > 0) {
        step >>= 1;
        spread_halved_first<<<1, 64>>>(cells, step);
    }

    unsigned gap = width;
    unsigned *gap_at = &gap;
    while (gap > 0) {
        shrink(gap_at);
        spread_aliased<<<1, 64>>>(cells, gap);
        gap >>= 1;
    }

    g_level = width;
    while (g_level > 0) {
        spread_global<<<1, 64>>>(cells, g_level);
        g_level >>= 1;
    }

    g_level = width;
    while (g_level > 0) {
        quarter_level();
        spread_global_helper<<<1, 64>>>(cells, g_level);
        g_level >>= 1;
    }
}
