#ifndef IMGFILTERS_UTIL_CUH
#define IMGFILTERS_UTIL_CUH

#include <cuda_runtime.h>
#include "config.cuh"

__device__ __forceinline__ int clamp_index(int v, int lo, int hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

__device__ __forceinline__ float weight_of(int offset) {
    return offset == 0 ? 0.4f : 0.15f;
}

#endif  // IMGFILTERS_UTIL_CUH
