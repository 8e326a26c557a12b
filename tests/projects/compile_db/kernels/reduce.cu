// The include folder, BLOCK and the GPU architecture come from the
// compile_commands.json above this folder (-I../inc -DBLOCK=128 sm_70).
// expect-kernel: reduce_block verified
// expect-kernel: reduce_arch_guarded verified
#include "blocks.h"

__global__ void reduce_block(const float* in, float* out) {
    __shared__ float s[BLOCK];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    for (int stride = HALF; stride > 0; stride >>= 1) {
        if (t < stride) {
            s[t] += s[t + stride];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
    }
}

// The build's sm_70 takes the first branch (the default 800 would take the
// racy second one).
__global__ void reduce_arch_guarded(const float* in, float* out) {
    __shared__ float s[BLOCK];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * BLOCK + t];
#if __CUDA_ARCH__ == 700
    __syncthreads();
    if (t == 0) {
        float acc = 0.0f;
        for (int i = 0; i < BLOCK; ++i) {
            acc += s[i];
        }
        out[blockIdx.x] = acc;
    }
#else
    out[blockIdx.x * BLOCK + t] = s[(t + 1) % BLOCK];
#endif
}

void launch(const float* in, float* out, int blocks) {
    reduce_block<<<blocks, BLOCK>>>(in, out);
    reduce_arch_guarded<<<blocks, BLOCK>>>(in, out);
}
