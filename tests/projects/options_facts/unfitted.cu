// fitted.cu's launches under `--block-dim 128`: only the `else` launch
// agrees with 128-thread blocks, and its rows are 32 wide: racy.
// syncscope-args: --block-dim 128
// expect-kernel: rows_over racy
#include <cuda_runtime.h>

__global__ void rows_over(float *out, int width)
{
    out[blockIdx.x * width + threadIdx.x] = (float)blockIdx.x; //~ data-race
}

void run_over(float *out, int bs)
{
    if (bs == 64) {
        rows_over<<<8, bs>>>(out, 64);
    } else {
        rows_over<<<8, bs>>>(out, 32);
    }
}
