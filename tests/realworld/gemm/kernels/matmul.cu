// Tiled matrix multiplies. The block shape (TILE x TILE) is only written at
// the launch site in host.cu; the tile size comes from include/gemm/tile.h
// (include-dirs in syncscope.toml).
#include "gemm/helpers.cuh"

// expect-kernel: matmul_tiled verified
// expect-kernel: matmul_tiled_t verified
// expect-kernel: matmul_missing_sync racy

__global__ void matmul_tiled(const float* A, const float* B, float* C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < ceil_div(n, TILE); ++t) {
        As[ty][tx] = (row < n && t * TILE + tx < n) ? A[row * n + t * TILE + tx] : 0.0f;
        Bs[ty][tx] = (col < n && t * TILE + ty < n) ? B[(t * TILE + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            acc = mul_add(acc, As[ty][k], Bs[k][tx]);
        }
        __syncthreads();
    }
    if (row < n && col < n) {
        C[row * n + col] = acc;
    }
}

template <int BS>
__global__ void matmul_tiled_t(const float* A, const float* B, float* C, int n) {
    __shared__ float As[BS][BS];
    __shared__ float Bs[BS][BS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * BS + ty;
    int col = blockIdx.x * BS + tx;
    float acc = 0.0f;
    for (int t = 0; t < n / BS; ++t) {
        As[ty][tx] = A[row * n + t * BS + tx];
        Bs[ty][tx] = B[(t * BS + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < BS; ++k) {
            acc += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    C[row * n + col] = acc;
}

// The second barrier is missing: the next tile's loads overwrite As/Bs
// while slower threads still read the previous tile.
__global__ void matmul_missing_sync(const float* A, const float* B, float* C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            acc += As[ty][k] * Bs[k][tx];
        }
    }
    C[row * n + col] = acc;
}
