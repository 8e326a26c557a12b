// The four shapes a compiler's preprocessor accepts and a reader of the
// raw text does not: a `#define` with a comment after its value (`HALO`
// from include/halo_api.h), a header whose declarations sit in `extern "C"
// {` under `#ifdef __cplusplus` (the kernels after it are still read), an
// `#if` inside a kernel's parameter list, and POSIX/libc headers
// (`<strings.h>`, `<unistd.h>`) that declare nothing a kernel uses. Each
// kernel has a racy twin, so a kernel dropped or a macro lost shows.
// syncscope-args: --block-dim 64
// expect-kernel: halo_shift verified
// expect-kernel: halo_shift_overlap racy
// expect-kernel: widened verified
// expect-kernel: widened_racy racy
// expect-kernel: linked verified
// expect-kernel: linked_racy racy
#include <strings.h>
#include <unistd.h>
#include <stdio.h>
#include "include/halo_api.h"

// Each thread writes its own cell of the tile's interior: HALO + t, with
// t < 64, never a neighbour's.
__global__ void halo_shift(float *out, const float *in)
{
    __shared__ float tile[TILE];
    int t = threadIdx.x;
    tile[HALO + t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    out[blockIdx.x * 64 + t] = tile[HALO + t] + tile[t];
}

// Two writes per thread, HALO apart: thread t and thread t + HALO write
// the same cell.
__global__ void halo_shift_overlap(float *out, const float *in)
{
    __shared__ float tile[TILE];
    int t = threadIdx.x;
    tile[t] = in[blockIdx.x * 64 + t];
    tile[t + HALO] = 0.0f; //~ data-race
    __syncthreads();
    out[blockIdx.x * 64 + t] = tile[t];
}

// A parameter that exists only in some builds: the compiler reads the
// branch the macros pick (`__CUDACC__` is defined in nvcc's device pass).
__global__ void widened(float *out,
#if defined(__CUDACC__) && HALO > 8
                        const float *in,
#else
                        const double *in,
#endif
                        int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    out[blockIdx.x * 64 + t] = s[63 - t] + (float)n;
}

__global__ void widened_racy(float *out,
#if HALO == 16
                             const float *in,
#elif HALO > 16
                             const double *in,
#endif
                             int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    out[blockIdx.x * 64 + t] = s[63 - t] + (float)n; //~ data-race
}

#ifdef __cplusplus
extern "C" {
#endif

// Kernels with C linkage, inside the same `extern "C"` shape as the header.
__global__ void linked(int *out)
{
    __shared__ int s[64];
    s[threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = s[ROW_OF(threadIdx.x) + 63 - threadIdx.x];
}

__global__ void linked_racy(int *out)
{
    __shared__ int s[64];
    s[threadIdx.x] = (int)threadIdx.x;
    out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x]; //~ data-race
}

#ifdef __cplusplus
}
#endif
