// A `.cu` file compiled only through another `.cu` that `#include`s it
// (main.cu): its kernels' launches are in the includer, read with the
// includer's macros. `halves` runs 128-thread blocks over a 128-cell
// tile (race-free); `halves_wide` runs 256-thread blocks over it (racy).
// expect-kernel: halves verified
// expect-kernel: halves_wide racy
#ifndef SCAN_KERNELS_CU
#define SCAN_KERNELS_CU

__global__ void halves(float *out, const float *in)
{
    __shared__ float tile[128];
    tile[threadIdx.x % 128] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[127 - threadIdx.x % 128];
}

__global__ void halves_wide(float *out, const float *in)
{
    __shared__ float tile[128];
    tile[threadIdx.x % 128] = in[blockIdx.x * blockDim.x + threadIdx.x]; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[127 - threadIdx.x % 128];
}

#endif
