// The same header included where the analysis is given no folder for it
// (no -I): Syncscope knows `syncscope.h` itself, so nothing is missing, and
// the annotation is still an assumption.
// expect-kernel: strided_halves verified
// expect-kernel: strided_halves_open racy
#include "syncscope.h"

__global__ void strided_halves(int *out)
{
    __requires(blockDim.x == 128 && blockDim.y == 1 && blockDim.z == 1);
    __shared__ int half[64];
    unsigned t = threadIdx.x;
    if (t < 64) {
        half[t] = threadIdx.y * 64 + t;
    }
    __syncthreads();
    out[blockIdx.x * 128 + t] = half[t / 2];
}

// No precondition: in a block with a second row (blockDim.y > 1) two rows
// write half[t] with different values, and both write one cell of `out`.
__global__ void strided_halves_open(int *out)
{
    __shared__ int half[64];
    unsigned t = threadIdx.x;
    if (t < 64) {
        half[t] = threadIdx.y * 64 + t; //~ data-race
    }
    __syncthreads();
    out[blockIdx.x * 128 + t] = half[t / 2]; //~ data-race
}
