// Block-wide building blocks, inlined into the kernels that call them.
#pragma once
#include "config.h"

// Double-buffered inclusive scan of `n` values held in `buf[0..2n)`;
// returns the half that holds the result. Every thread of the block calls it.
template <int N>
__device__ int block_scan_inclusive(float* buf, int tid) {
    int out = 0;
    for (int offset = 1; offset < N; offset *= 2) {
        int in = out;
        out = 1 - out;
        if (tid >= offset) {
            buf[out * N + tid] = buf[in * N + tid] + buf[in * N + tid - offset];
        } else {
            buf[out * N + tid] = buf[in * N + tid];
        }
        __syncthreads();
    }
    return out;
}

__device__ __forceinline__ void compare_swap(float* s, int i, int j, bool ascending) {
    float a = s[i];
    float b = s[j];
    if ((a > b) == ascending) {
        s[i] = b;
        s[j] = a;
    }
}
