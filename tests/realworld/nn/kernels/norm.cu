// Row normalisations, one block per row (block size a multiple of 32).
#include "nn/reduce.cuh"

// expect-kernel: rms_norm verified
// expect-kernel: layer_norm_reuse_race racy
// expect-kernel: softmax_rows verified

__global__ void rms_norm(const float* x, const float* w, float* y, int cols, float eps) {
    __shared__ float smem[WARP_SIZE];
    __shared__ float inv_rms;
    index_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float ss = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        ss += xr[c] * xr[c];
    }
    ss = block_reduce_sum(ss, smem);
    if (threadIdx.x == 0) {
        inv_rms = rsqrtf(ss / cols + eps);
    }
    __syncthreads();
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        y[row * cols + c] = xr[c] * inv_rms * w[c];
    }
}

// Mean and variance reduced with the unsafe helper: the second reduction's
// writes to smem race with the first one's reads.
__global__ void layer_norm_reuse_race(const float* x, float* y, int cols) {
    __shared__ float smem[WARP_SIZE];
    int row = blockIdx.x;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        s += x[row * cols + c];
    }
    float mean = block_reduce_sum_unsafe(s, smem) / cols;
    float v = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float d = x[row * cols + c] - mean;
        v += d * d;
    }
    float var = block_reduce_sum_unsafe(v, smem) / cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        y[row * cols + c] = (x[row * cols + c] - mean) * rsqrtf(var + 1e-5f);
    }
}

// One warp per row.
__global__ void softmax_rows(const float* x, float* y, int rows, int cols) {
    int row = blockIdx.x * (blockDim.x / WARP_SIZE) + threadIdx.x / WARP_SIZE;
    int lane = threadIdx.x % WARP_SIZE;
    if (row >= rows) {
        return;
    }
    float m = -INFINITY;
    for (int c = lane; c < cols; c += WARP_SIZE) {
        m = fmaxf(m, x[row * cols + c]);
    }
    m = warp_reduce_max(m);
    float sum = 0.0f;
    for (int c = lane; c < cols; c += WARP_SIZE) {
        sum += expf(x[row * cols + c] - m);
    }
    sum = warp_reduce_sum(sum);
    for (int c = lane; c < cols; c += WARP_SIZE) {
        y[row * cols + c] = expf(x[row * cols + c] - m) / sum;
    }
}
