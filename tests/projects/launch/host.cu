// Host code of launch/kernels.cu: the only place the launch sizes are written.
#include <cassert>
#include <cuda_runtime.h>

#define TILE 16
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void matmul(const float* A, const float* B, float* C, int n);
__global__ void transpose(float* out, const float* in, int width, int height);
__global__ void scale_by_row(float* out, const float* in, const float* scale, int n);
__global__ void rotate_scan(float* data, int n, int shift);
__global__ void fold(float* out, const float* in);

static bool is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

int multiply(const float* A, const float* B, float* C, int n) {
    if (n % TILE != 0) {
        return -1;
    }
    dim3 block(TILE, TILE);
    dim3 grid(n / TILE, n / TILE);
    matmul<<<grid, block>>>(A, B, C, n);
    return 0;
}

void transpose_matrix(float* out, const float* in, int width, int height, cudaStream_t stream) {
    if (width % TILE_DIM != 0 || height % TILE_DIM != 0) {
        return;
    }
    dim3 grid(width / TILE_DIM, height / TILE_DIM);
    dim3 block(TILE_DIM, BLOCK_ROWS);
    transpose<<<grid, block, 0, stream>>>(out, in, width, height);
}

void scale(float* out, const float* in, const float* s, int n, int threads) {
    scale_by_row<<<(n + threads - 1) / threads, threads>>>(out, in, s, n);
}

void scan(float* data, int n, int shift) {
    assert(is_pow2(n) && n <= 1024);
    rotate_scan<<<1, n, n * sizeof(float)>>>(data, n, shift);
}

void folds(float* out, const float* in, int blocks) {
    fold<<<blocks, 128>>>(out, in);
    fold<<<blocks, 256>>>(out, in);
}
