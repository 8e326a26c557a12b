// The same scaling with the block size written in (BLOCK, from a header next
// to this file): race-free and equivalent to scale_naive.cu only under the
// 256-thread blocks syncscope.toml fixes (tests/equiv.rs).
// expect-kernel: scale verified
#include "block.cuh"

__global__ void scale(float *out, const float *in, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) {
        out[i] = 2.0f * in[i];
    }
}
