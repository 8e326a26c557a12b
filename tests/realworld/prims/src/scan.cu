// Scans. Headers are found relative to this file (no -I needed).
#include "../include/prims/block_ops.cuh"

// expect-kernel: scan_double_buffer verified
// expect-kernel: scan_in_place racy
// expect-kernel: scan_blelloch verified

__global__ void scan_double_buffer(const float* in, float* out) {
    __shared__ float buf[2 * SCAN_BLOCK];
    int tid = threadIdx.x;
    int base = blockIdx.x * SCAN_BLOCK;
    buf[tid] = in[base + tid];
    __syncthreads();
    int half = block_scan_inclusive<SCAN_BLOCK>(buf, tid);
    out[base + tid] = buf[half * SCAN_BLOCK + tid];
}

// The classic mistake: reads of s[tid - offset] race with the writes of
// the neighbouring threads in the same step.
__global__ void scan_in_place(float* data) {
    __shared__ float s[SCAN_BLOCK];
    int tid = threadIdx.x;
    s[tid] = data[blockIdx.x * SCAN_BLOCK + tid];
    __syncthreads();
    for (int offset = 1; offset < SCAN_BLOCK; offset *= 2) {
        if (tid >= offset) {
            s[tid] += s[tid - offset];
        }
        __syncthreads();
    }
    data[blockIdx.x * SCAN_BLOCK + tid] = s[tid];
}

// Work-efficient exclusive scan over 2 * blockDim.x elements (one block).
__global__ void scan_blelloch(float* data, int n) {
    extern __shared__ float temp[];
    int tid = threadIdx.x;
    temp[2 * tid] = data[2 * tid];
    temp[2 * tid + 1] = data[2 * tid + 1];
    int offset = 1;
    for (int d = n >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    if (tid == 0) {
        temp[n - 1] = 0;
    }
    for (int d = 1; d < n; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            float t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    __syncthreads();
    data[2 * tid] = temp[2 * tid];
    data[2 * tid + 1] = temp[2 * tid + 1];
}
