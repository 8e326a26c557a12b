#pragma once
#include "common.cuh"

template <typename T>
__device__ __forceinline__ T warp_reduce_sum(T v) {
    for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) {
        v += __shfl_xor_sync(FULL_MASK, v, offset);
    }
    return v;
}

template <typename T>
__device__ __forceinline__ T warp_reduce_max(T v) {
    for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) {
        v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, offset));
    }
    return v;
}

// Sum over the block. `smem` holds one value per warp; the leading barrier
// lets a caller reduce twice in a row with the same buffer.
template <typename T>
__device__ T block_reduce_sum(T v, T* smem) {
    int lane = threadIdx.x % WARP_SIZE;
    int warp = threadIdx.x / WARP_SIZE;
    v = warp_reduce_sum(v);
    __syncthreads();
    if (lane == 0) {
        smem[warp] = v;
    }
    __syncthreads();
    v = threadIdx.x < blockDim.x / WARP_SIZE ? smem[lane] : T(0);
    return warp_reduce_sum(v);
}

// The same without the leading barrier: unsafe to call twice on one buffer.
template <typename T>
__device__ T block_reduce_sum_unsafe(T v, T* smem) {
    int lane = threadIdx.x % WARP_SIZE;
    int warp = threadIdx.x / WARP_SIZE;
    v = warp_reduce_sum(v);
    if (lane == 0) {
        smem[warp] = v;
    }
    __syncthreads();
    v = threadIdx.x < blockDim.x / WARP_SIZE ? smem[lane] : T(0);
    return warp_reduce_sum(v);
}
