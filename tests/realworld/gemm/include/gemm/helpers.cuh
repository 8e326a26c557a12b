#pragma once
#include <cuda_runtime.h>
#include <cstdint>
#include "tile.h"

template <typename T>
__device__ __forceinline__ T mul_add(T acc, T a, T b) {
    return acc + a * b;
}

__device__ __forceinline__ int ceil_div(int a, int b) {
    return (a + b - 1) / b;
}

// Sum over the 32 lanes of a warp (registers only: no shared memory).
__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = WARP_LANES / 2; offset > 0; offset >>= 1) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}
