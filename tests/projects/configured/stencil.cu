// Everything this file needs comes from syncscope.toml: the include folder,
// BLOCK, and the launch of `stencil_racy`. The CLI and the server read the
// same file and must agree.
// expect-kernel: stencil verified
// expect-kernel: stencil_racy racy
#include "params.cuh"

__global__ void stencil(const float* in, float* out) {
    __shared__ float s[BLOCK + 2 * RADIUS];
    int t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;
    s[t + RADIUS] = in[g + RADIUS];
    if (t < RADIUS) {
        s[t] = in[g];
        s[t + BLOCK + RADIUS] = in[g + BLOCK + RADIUS];
    }
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k <= 2 * RADIUS; ++k) {
        acc += s[t + k];
    }
    out[g] = acc;
}

__global__ void stencil_racy(const float* in, float* out) {
    __shared__ float s[BLOCK + 2 * RADIUS];
    int t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;
    s[t + RADIUS] = in[g + RADIUS]; //~ data-race
    float acc = 0.0f;
    for (int k = 0; k <= 2 * RADIUS; ++k) {
        acc += s[t + k]; //~ data-race
    }
    out[g] = acc;
}
