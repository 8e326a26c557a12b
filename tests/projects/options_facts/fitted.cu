// A command-line block size combined with the host code's facts: the
// host launches `rows_at` with `bs` threads, passing a width of 64 when
// `bs == 64` and 32 otherwise. `--block-dim 64` agrees only with the
// first launch, so its facts (width == 64) hold with the user's size:
// race-free. (Without the flag the other launch, 32-wide rows under any
// other block, races: unfitted.cu shows it with `--block-dim 128`.)
// syncscope-args: --block-dim 64
// expect-kernel: rows_at verified
#include <cuda_runtime.h>

__global__ void rows_at(float *out, int width)
{
    out[blockIdx.x * width + threadIdx.x] = (float)blockIdx.x;
}

void run(float *out, int bs)
{
    if (bs == 64) {
        rows_at<<<8, bs>>>(out, 64);
    } else {
        rows_at<<<8, bs>>>(out, 32);
    }
}
