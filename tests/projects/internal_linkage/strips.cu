// Host functions of internal linkage, whose names other files of the
// project reuse for functions of their own: a `static` function (or one
// in an anonymous namespace) is called only from the unit that compiles
// it, so its callers there bind its parameters whatever cpu.cpp names.
// `strip`: `static launch_strip`, called with 64 and 128 for 64-thread
// blocks (race-free), while cpu.cpp has its own `static launch_strip`
// called with 16. `strip_narrow`: its `static` launcher is called with 64
// and 32 here (racy). `band`: launched from an anonymous namespace's
// `launch_band`, called with 96 (race-free; cpu.cpp's own `launch_band`
// gets 8). `strip_included`: called with 64 here, but wrap.cu includes
// this file and calls its own copy of the launcher with 16 (racy).
// expect-kernel: strip verified
// expect-kernel: strip_narrow racy
// expect-kernel: band verified
// expect-kernel: strip_included racy
#ifndef STRIPS_CU
#define STRIPS_CU

#include <cuda_runtime.h>

__global__ void strip(float *out, int width)
{
    out[blockIdx.x * width + threadIdx.x] = (float)threadIdx.x;
}

__global__ void strip_narrow(float *out, int width)
{
    out[blockIdx.x * width + threadIdx.x] = (float)threadIdx.x; //~ data-race
}

__global__ void band(float *out, int width)
{
    out[blockIdx.x * width + threadIdx.x] = 2.0f * threadIdx.x;
}

__global__ void strip_included(float *out, int width)
{
    out[blockIdx.x * width + threadIdx.x] = (float)blockIdx.x; //~ data-race
}

static void launch_strip(float *out, int width)
{
    strip<<<8, 64>>>(out, width);
}

static void launch_strip_narrow(float *out, int width)
{
    strip_narrow<<<8, 64>>>(out, width);
}

namespace {
void launch_band(float *out, int width)
{
    band<<<4, 64>>>(out, width);
}
} // namespace

static void launch_strip_included(float *out, int width)
{
    strip_included<<<8, 64>>>(out, width);
}

void run_strips(float *out)
{
    launch_strip(out, 64);
    launch_strip(out, 128);
    launch_strip_narrow(out, 64);
    launch_strip_narrow(out, 32);
    launch_band(out, 96);
    launch_strip_included(out, 64);
}

#endif
