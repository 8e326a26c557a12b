// Kernels launched only from the host function `run_passes` of this
// header, which main.cu includes and calls with constants. A header is
// compiled only inside its includers: its launches are read as main.cu
// compiles it, with main.cu's calls binding `count` and `log2n`.
//
// `pair_pass`: each thread combines the pair (a, a + half) of its
// position; the pairs are disjoint when `half` is a power of two (or
// zero). The loop passes `n / 2` where `n` starts at `1 << log2n` (a
// constant power of two) and only halves; the grid is made before the
// loop, where `count` still holds the 1 main.cu passes (one row of
// blocks). `pair_pass_uneven` gets a span started at `3 << log2n`: not a
// power of two, no fact (racy where `half` is not one).
//
// `leaf_pass` runs after the loop, whose header reads only constants: it
// runs to its end (`log2n == 9`, `n == 512`), so each block of n / 2
// threads writes `tile[t]` and `tile[t + n / 2]`, then reads mirrored
// cells after a barrier (race-free);
// `leaf_pass_wide` runs n threads over the same tile (racy).
//
// expect-kernel: pair_pass verified
// expect-kernel: pair_pass_uneven racy
// expect-kernel: leaf_pass verified
// expect-kernel: leaf_pass_wide racy
#pragma once

#define LEAF_LOG2 9

__global__ void pair_pass(float *data, int half)
{
    int pos = blockIdx.x * blockDim.x + threadIdx.x;
    int low = pos & (half - 1);
    int a = ((pos - low) << 1) + low;
    int b = a + half;
    float x = data[a];
    float y = data[b];
    data[a] = x + y;
    data[b] = x - y;
}

__global__ void pair_pass_uneven(float *data, int half)
{
    // Two threads write different values exactly when `half` is not a
    // power of two (or zero).
    if ((half & (half - 1)) != 0) {
        data[0] = blockIdx.x * blockDim.x + threadIdx.x; //~ data-race
    }
}

__global__ void leaf_pass(float *data, int log2n)
{
    extern __shared__ float tile[];
    int n = 1 << log2n;
    int base = blockIdx.x << log2n;
    int t = threadIdx.x;
    tile[t] = data[base + t];
    tile[t + (n >> 1)] = data[base + t + (n >> 1)];
    __syncthreads();
    data[base + t] = tile[(n >> 1) - 1 - t] + tile[t + (n >> 1)];
    data[base + t + (n >> 1)] = tile[t] - tile[n - 1 - t];
}

__global__ void leaf_pass_wide(float *data, int log2n)
{
    extern __shared__ float tile[];
    int n = 1 << log2n;
    int base = blockIdx.x << log2n;
    int t = threadIdx.x;
    tile[t] = data[base + t]; //~ data-race
    tile[t + (n >> 1)] = data[base + t + (n >> 1)];
    __syncthreads();
    data[base + t] = tile[(n >> 1) - 1 - t] + tile[t + (n >> 1)]; //~ data-race
    data[base + t + (n >> 1)] = tile[t] - tile[n - 1 - t]; //~ data-race
}

void run_passes(float *d, int count, int log2n)
{
    int n = 1 << log2n;
    dim3 grid((1 << log2n) / 256, count);
    for (; log2n > LEAF_LOG2; log2n -= 1, n >>= 1, count <<= 1) {
        pair_pass<<<grid, 128>>>(d, n / 2);
    }
    leaf_pass<<<count, n / 2, n * sizeof(float)>>>(d, log2n);
    leaf_pass_wide<<<count, n, n * sizeof(float)>>>(d, log2n);
}

void run_uneven(float *d, int log2n)
{
    int span = 3 << log2n;
    for (; span > 64; span >>= 1) {
        pair_pass_uneven<<<span / 64, 32>>>(d, span / 2);
    }
}
