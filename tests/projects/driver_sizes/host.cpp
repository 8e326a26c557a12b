// Host code of driver_sizes/kernels.cu: the block size is filled in by a
// helper through a pointer (`choose_block(&bs)`), read from the
// environment; each row width is a macro over it, passed through the
// driver launch's `args` array.
#include <cuda.h>
#include <stdlib.h>
#include "sizes.h"

static void choose_block(int *out)
{
    const char *s = getenv("ROW_BLOCK");
    *out = s ? atoi(s) : 128;
}

void spread_rows(CUmodule module, CUdeviceptr out)
{
    CUfunction f;
    cuModuleGetFunction(&f, module, "spread");
    int bs = 0;
    choose_block(&bs);
    dim3 block(bs, 1, 1);
    dim3 grid(ROWS, 1, 1);
    size_t width = ROW_WIDTH;
    void *args[] = {&out, &width};
    cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, 0, NULL, args, NULL);
}

void spread_half_rows(CUmodule module, CUdeviceptr out)
{
    CUfunction f;
    cuModuleGetFunction(&f, module, "spread_half");
    int bs = 0;
    choose_block(&bs);
    dim3 block(bs, 1, 1);
    dim3 grid(ROWS, 1, 1);
    size_t width = HALF_WIDTH;
    void *args[] = {&out, &width};
    cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, 0, NULL, args, NULL);
}
