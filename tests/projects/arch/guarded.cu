// The device pass defines __CUDA_ARCH__ (800 unless configured): code under
// `#if __CUDA_ARCH__ >= 700` is analysed, and a kernel whose body exists
// only for old architectures is said to be empty, not verified.
// syncscope-args: --block-dim 128 --grid-dim 1
// expect-kernel: modern_only racy
// expect-kernel: modern_verified verified
// expect-kernel: legacy_only not-verified
#include <cuda_runtime.h>

__global__ void modern_only(float* data) {
#if __CUDA_ARCH__ >= 700
    __shared__ float s[128];
    s[threadIdx.x] = data[threadIdx.x]; //~ data-race
    data[threadIdx.x] = s[127 - threadIdx.x]; //~ data-race
#endif
}

__global__ void modern_verified(float* data) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    __shared__ float s[128];
    s[threadIdx.x] = data[threadIdx.x];
    __syncthreads();
    data[threadIdx.x] = s[127 - threadIdx.x];
#endif
}

__global__ void legacy_only(float* data) {
#if __CUDA_ARCH__ < 600 //~ not-verified
    data[threadIdx.x] = 0.0f;
#endif
}
