// Host code of driver_pairs/kernels.cu: helpers that load one kernel of a
// table by name and hand it back with its block size through pointers;
// their callers launch it with `dim3 block(threads, 1, 1)`.
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 32

static int pick_ring(CUmodule module, CUfunction *kernel, int *block)
{
    const char *names[] = {"ring_256", "ring_128"};
    CUfunction f = 0;
    int threads = 256;
    int i = 0;
    while (i < 2) {
        int grid = 0;
        int most = 0;
        if (cuModuleGetFunction(&f, module, names[i]) != CUDA_SUCCESS) {
            exit(EXIT_FAILURE);
        }
        cuOccupancyMaxPotentialBlockSize(&grid, &most, f, 0, 0, 0);
        if (threads <= most) {
            printf("block of %d threads\n", threads);
            break;
        }
        threads /= 2;
        i++;
    }
    *kernel = f;
    *block = threads;
    return 0;
}

void run_ring(CUmodule module, CUdeviceptr out, CUdeviceptr in)
{
    CUfunction ring = NULL;
    int threads = 0;
    pick_ring(module, &ring, &threads);
    dim3 block(threads, 1, 1);
    dim3 grid(ROWS, 1, 1);
    void *args[] = {&out, &in};
    cuLaunchKernel(ring, grid.x, grid.y, grid.z, block.x, block.y, block.z, 0, NULL, args, NULL);
}

static void pick_band(CUmodule module, CUfunction *kernel, int *block)
{
    const char *names[] = {"band_wide", "band_narrow"};
    CUfunction f = 0;
    int threads = 256;
    for (int i = 0; i < 2; ++i) {
        int grid = 0;
        int most = 0;
        cuModuleGetFunction(&f, module, names[i]);
        cuOccupancyMaxPotentialBlockSize(&grid, &most, f, 0, 0, 0);
        if (threads <= most) {
            break;
        }
        threads /= 2;
    }
    *kernel = f;
    *block = threads;
}

void run_band(CUmodule module, CUdeviceptr out, CUdeviceptr in)
{
    CUfunction band = NULL;
    int threads = 0;
    pick_band(module, &band, &threads);
    void *args[] = {&out, &in};
    cuLaunchKernel(band, ROWS, 1, 1, threads, 1, 1, 0, NULL, args, NULL);
}

static void pick_mix(CUmodule module, int pick, CUfunction *kernel, int *block)
{
    const char *names[] = {"mix_wide", "mix_narrow"};
    CUfunction f = 0;
    int threads = 256;
    if (pick) {
        threads = 128;
    }
    cuModuleGetFunction(&f, module, names[pick]);
    *kernel = f;
    *block = threads;
}

void run_mix(CUmodule module, CUdeviceptr out, CUdeviceptr in)
{
    CUfunction mix = NULL;
    int threads = 0;
    pick_mix(module, atoi(getenv("MIX")) & 1, &mix, &threads);
    void *args[] = {&out, &in};
    cuLaunchKernel(mix, ROWS, 1, 1, threads, 1, 1, 0, NULL, args, NULL);
}
