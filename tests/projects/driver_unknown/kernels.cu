// A module function loaded by a name the analysis cannot read (a
// parameter, host.cpp): any kernel of the project may be the one loaded,
// so each is checked under a launch of any size as well, and the report
// names the load. `ring_named` is also loaded by its literal name and
// launched with 64-thread blocks (race-free there), but the unread load
// may launch it with any block: racy. `copy_any` is race-free under any
// launch: verified.
// expect-kernel: ring_named racy
// expect-kernel: copy_any verified
#include <cuda_runtime.h>

extern "C" __global__ void ring_named(float *out, const float *in)
{
    __shared__ float ring[64];
    ring[threadIdx.x % 64] = in[blockIdx.x * blockDim.x + threadIdx.x]; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = ring[(threadIdx.x + 1) % 64];
}

extern "C" __global__ void copy_any(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];
}
