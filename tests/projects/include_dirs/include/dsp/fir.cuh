#pragma once
#include <cuda_runtime.h>

constexpr int FIR_TAPS = 8;
constexpr int FIR_BLOCK = 128;

__device__ __forceinline__ float tap_weight(int k) { return 1.0f / (k + 1); }
