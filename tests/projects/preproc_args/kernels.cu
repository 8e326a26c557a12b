// Preprocessor conditionals inside a parameter list and inside a launch's
// argument list (`#ifndef`/`#else`/`#endif` between the arguments), read
// as the compiler reads them with the unit's macros: the branches not
// taken are dropped, so the launch binds the parameters the taken branch
// leaves. `ring_width` gets `width == 64` under 64-thread blocks
// (race-free); `ring_narrow`'s launch takes the `#else` branch, which
// passes 32 (threads t and t + 32 share a cell: racy).
// expect-kernel: ring_width verified
// expect-kernel: ring_narrow racy
#include <cuda_runtime.h>

#define USE_RUNTIME_WIDTH 1

__global__ void ring_width(float *out,
#ifndef FIXED_WIDTH
                           int width,
#endif
                           int n)
{
    __shared__ float ring[64];
    ring[threadIdx.x % width] = (float)threadIdx.x;
    __syncthreads();
    if (blockIdx.x * blockDim.x + threadIdx.x < n) {
        out[blockIdx.x * blockDim.x + threadIdx.x] = ring[(threadIdx.x + 1) % 64];
    }
}

__global__ void ring_narrow(float *out, int width, int n)
{
    __shared__ float ring[64];
    ring[threadIdx.x % width] = (float)threadIdx.x; //~ data-race
    __syncthreads();
    if (blockIdx.x * blockDim.x + threadIdx.x < n) {
        out[blockIdx.x * blockDim.x + threadIdx.x] = ring[(threadIdx.x + 1) % 64];
    }
}

void run(float *out, int n)
{
#ifndef FIXED_WIDTH
    int width = 64;
#endif
    ring_width<<<n / 64, 64>>>(out,
#ifndef FIXED_WIDTH
                               width,
#endif
                               n);
    ring_narrow<<<n / 64, 64>>>(out,
#if !USE_RUNTIME_WIDTH
                                64,
#else
                                32,
#endif
                                n);
}
