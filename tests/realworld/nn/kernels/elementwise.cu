// Element-wise and gather kernels of the inference engine.
#include "nn/common.cuh"

// expect-kernel: gelu_half verified
// expect-kernel: embedding_gather verified
// expect-kernel: add_bias_bf16 verified
// expect-kernel: rope_rotate verified

__global__ void gelu_half(__half* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = __half2float(x[i]);
        float g = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
        x[i] = __float2half(g);
    }
}

// Row `blockIdx.x` of the output gathers the table row named by ids.
__global__ void embedding_gather(const int32_t* ids, const float* table, float* out, int dim) {
    int row = blockIdx.x;
    int id = ids[row];
    for (int c = threadIdx.x; c < dim; c += blockDim.x) {
        out[row * dim + c] = table[id * dim + c];
    }
}

// Only compiled for devices with native bf16 arithmetic.
__global__ void add_bias_bf16(__nv_bfloat16* x, const __nv_bfloat16* bias, int rows, int cols) {
#ifdef NN_HAS_BF16
    int r = blockIdx.y;
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += blockDim.x * gridDim.x) {
        x[r * cols + c] = __hadd(x[r * cols + c], bias[c]);
    }
#endif
}

// Rotary embedding: each thread rotates one (even, odd) pair of a head.
__global__ void rope_rotate(float* q, const float* cos_t, const float* sin_t, int head_dim) {
    int head = blockIdx.x;
    int pair = threadIdx.x;
    if (2 * pair + 1 < head_dim) {
        float* h = q + head * head_dim;
        float a = h[2 * pair];
        float b = h[2 * pair + 1];
        h[2 * pair] = a * cos_t[pair] - b * sin_t[pair];
        h[2 * pair + 1] = a * sin_t[pair] + b * cos_t[pair];
    }
}
