// Shared definitions of the inference kernels.
#pragma once
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdint>
#include <cmath>

#define WARP_SIZE 32
#define MAX_THREADS 1024
#define FULL_MASK 0xffffffffu

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define NN_HAS_BF16 1
#endif

typedef int64_t index_t;

template <typename T>
struct SumOp {
    __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
