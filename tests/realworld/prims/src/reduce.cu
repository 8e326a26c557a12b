// Reductions: a templated shared-memory tree, a cooperative-groups one and a
// warp-shuffle maximum. Templates and block sizes come from the headers.
#include <cooperative_groups.h>
#include "../include/prims/config.h"

namespace cg = cooperative_groups;

// expect-kernel: reduce_tree verified
// expect-kernel: reduce_cg verified
// expect-kernel: warp_max verified
// expect-kernel: reduce_tree_early_exit divergent

template <int BLOCK>
__device__ float tree_sum(float* s, int tid) {
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            s[tid] += s[tid + stride];
        }
        __syncthreads();
    }
    return s[0];
}

template <int BLOCK>
__global__ void reduce_tree(const float* in, float* out) {
    __shared__ float s[BLOCK];
    int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * BLOCK + tid];
    __syncthreads();
    float total = tree_sum<BLOCK>(s, tid);
    if (tid == 0) {
        out[blockIdx.x] = total;
    }
}

template __global__ void reduce_tree<REDUCE_BLOCK>(const float*, float*);

__global__ void reduce_cg(const float* in, float* out, int n) {
    __shared__ float s[REDUCE_BLOCK];
    cg::thread_block block = cg::this_thread_block();
    int tid = threadIdx.x;
    int i = blockIdx.x * REDUCE_BLOCK + tid;
    s[tid] = i < n ? in[i] : 0.0f;
    block.sync();
    for (int stride = REDUCE_BLOCK / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            s[tid] += s[tid + stride];
        }
        block.sync();
    }
    if (tid == 0) {
        out[blockIdx.x] = s[0];
    }
}

__global__ void warp_max(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : -1e30f;
    for (int offset = 16; offset > 0; offset >>= 1) {
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    }
    if (threadIdx.x % 32 == 0) {
        out[i / 32] = v;
    }
}

// Threads past the end leave early and miss the barriers of the tree.
__global__ void reduce_tree_early_exit(const float* in, float* out, int n) {
    __shared__ float s[REDUCE_BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * REDUCE_BLOCK + tid;
    if (i >= n) {
        return;
    }
    s[tid] = in[i];
    __syncthreads();
    for (int stride = REDUCE_BLOCK / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            s[tid] += s[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = s[0];
    }
}
