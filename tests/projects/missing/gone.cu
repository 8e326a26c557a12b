// `tiles/config.h` does not exist: one include finding names it and the
// folders searched; the kernel using its names is not verified (never
// "verified", never a storm of syntax errors); the kernel that needs
// nothing from it is verified.
// syncscope-args: --block-dim 256
// expect-kernel: uses_missing_names not-verified
// expect-kernel: self_contained verified
// expect-kernel: several_declarators verified
#include "tiles/config.h" //~ include
#include <cuda_runtime.h>
#include <thrust/device_vector.h> //~ include

__global__ void uses_missing_names(float* data) { //~ not-verified
    __shared__ float s[TILE_SIZE];
    int t = threadIdx.x;
    s[t] = data[t];
    __syncthreads();
    data[t] = s[(t + STRIDE) % TILE_SIZE];
}

__global__ void self_contained(float* data) {
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = data[blockIdx.x * 256 + t];
    __syncthreads();
    data[blockIdx.x * 256 + t] = s[255 - t];
}

// Every declarator of `float a, b;` is defined, in the kernel and in the
// helpers it calls: none is a name the missing header must supply.
__device__ float accumulate(float seed, int rounds) {
    float re, im, re2, im2;
    re = seed;
    im = 0.5f;
    re2 = re * re;
    im2 = im * im;
    while (--rounds > 0 && re2 + im2 < 4.0f) {
        im = 2.0f * re * im + seed;
        re = re2 - im2 + seed;
        re2 = re * re;
        im2 = im * im;
    }
    return re2 + im2;
}

__global__ void several_declarators(float* out, float seed, int rounds) {
    int i, j = 0;
    i = blockIdx.x * 256 + threadIdx.x;
    out[i + j] = accumulate(seed, rounds);
}
