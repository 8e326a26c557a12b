// A command-line grid that contradicts the host's launch replaces it: the
// host launches `shift_rows` on one row of 16 blocks, but `--grid-dim
// 16,2,1` asks for two rows, so no launch site agrees and the check runs
// under the user's sizes alone: blocks (1,0) and (0,1) write the same
// cells (host_grid.cu keeps the host's grid).
// syncscope-args: --block-dim 64 --grid-dim 16,2,1
// expect-kernel: shift_rows racy
#include <cuda_runtime.h>

__global__ void shift_rows(float *out)
{
    out[(blockIdx.x + blockIdx.y) * blockDim.x + threadIdx.x] = (float)blockIdx.y; //~ data-race
}

void run(float *out)
{
    dim3 grid(16);
    shift_rows<<<grid, 64>>>(out);
}
