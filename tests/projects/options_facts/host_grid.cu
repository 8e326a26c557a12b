// A command-line block size keeps the grid the host code fixes: the host
// launches `shift_rows` on one row of 16 blocks, and `--block-dim 64` says
// nothing about the grid, so the check runs under blockDim = (64,1,1) and
// the host's gridDim = (16,1,1): race-free. (Under a grid of two rows the
// blocks (1,0) and (0,1) write the same cells: host_grid_overridden.cu.)
// syncscope-args: --block-dim 64
// expect-kernel: shift_rows verified
#include <cuda_runtime.h>

__global__ void shift_rows(float *out)
{
    out[(blockIdx.x + blockIdx.y) * blockDim.x + threadIdx.x] = (float)blockIdx.y;
}

void run(float *out)
{
    dim3 grid(16);
    shift_rows<<<grid, 64>>>(out);
}
