// Vector kernels: a grid-stride axpy, a dot product through warp sums and a
// shared array of per-warp partials, a row-per-block matrix-vector product.
#include "gemm/helpers.cuh"

// expect-kernel: axpy verified
// expect-kernel: dot_product verified
// expect-kernel: matvec_rows verified
// expect-kernel: scale_rows verified

__global__ void axpy(int n, float a, const float* x, float* y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = a * x[i] + y[i];
    }
}

template <int BLOCK>
__global__ void dot_product(const float* x, const float* y, float* result, int n) {
    __shared__ float warp_sums[BLOCK / WARP_LANES];
    int lane = threadIdx.x % WARP_LANES;
    int warp = threadIdx.x / WARP_LANES;
    float v = 0.0f;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x) {
        v += x[i] * y[i];
    }
    v = warp_sum(v);
    if (lane == 0) {
        warp_sums[warp] = v;
    }
    __syncthreads();
    if (warp == 0) {
        v = lane < BLOCK / WARP_LANES ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) {
            atomicAdd(result, v);
        }
    }
}

template __global__ void dot_product<256>(const float*, const float*, float*, int);

// One block per row; a tree reduction over MATVEC_BLOCK partial sums.
__global__ void matvec_rows(const float* A, const float* x, float* y, int cols) {
    __shared__ float partial[MATVEC_BLOCK];
    int row = blockIdx.x;
    float acc = 0.0f;
    for (int c = threadIdx.x; c < cols; c += MATVEC_BLOCK) {
        acc += A[row * cols + c] * x[c];
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int s = MATVEC_BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            partial[threadIdx.x] += partial[threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        y[row] = partial[0];
    }
}

// Rows scaled in place, one row per block, columns spread over the block.
__global__ void scale_rows(float* A, const float* scale, int cols) {
    int row = blockIdx.x;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        A[row * cols + c] *= scale[row];
    }
}
