// Kernels whose tile size, barrier and index macros and device function come
// from headers in a sub-folder (found relative to this file). As[TILE][TILE]
// keeps its row size: As[ty][tx] of two threads never collide.
// syncscope-args: --block-dim 16,16 --grid-dim 4,4
// expect-kernel: tile_transpose verified
// expect-kernel: tile_transpose_unsynced racy
// expect-kernel: tile_sum_t verified
// expect-kernel: macro_barrier_missing racy
// expect-kernel: tile_rows_any_size verified
#include "common/tile.cuh"
#include "common/header_kernel.cuh"

__global__ void tile_transpose(const float* in, float* out) {
    __shared__ float As[TILE][TILE];
    int n = TILE * gridDim.x;
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    As[ty][tx] = in[row * n + col];
    SYNC();
    out[(blockIdx.x * TILE + ty) * n + blockIdx.y * TILE + tx] = scaled(As[tx][ty], 2.0f);
}

// The barrier is forgotten: the transposed read races with the writes.
__global__ void tile_transpose_unsynced(const float* in, float* out) {
    __shared__ float As[TILE][TILE];
    int n = TILE * gridDim.x;
    int tx = threadIdx.x, ty = threadIdx.y;
    As[ty][tx] = in[(blockIdx.y * TILE + ty) * n + blockIdx.x * TILE + tx]; //~ data-race
    out[(blockIdx.x * TILE + ty) * n + blockIdx.y * TILE + tx] = As[tx][ty]; //~ data-race
}

// The tile size is a template parameter; the instantiation names it.
template <int T>
__global__ void tile_sum_t(const float* in, float* out) {
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    Bs[ty][tx] = in[(blockIdx.y * T + ty) * (T * gridDim.x) + blockIdx.x * T + tx];
    SYNC();
    if (tx == 0) {
        float s = 0.0f;
        for (int k = 0; k < T; ++k) {
            s += Bs[ty][k];
        }
        out[(blockIdx.y * gridDim.x + blockIdx.x) * T + ty] = s;
    }
}

template __global__ void tile_sum_t<TILE>(const float*, float*);

// A 1-D buffer indexed through the header's AT macro; the barrier macro
// between the write and the neighbour read is missing.
__global__ void macro_barrier_missing(float* data) {
    __shared__ float s[TILE * TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    s[AT(ty, tx)] = data[AT(ty, tx)]; //~ data-race
    data[AT(ty, tx)] = s[AT(ty, (tx + 1) % TILE)]; //~ data-race
}

// No instantiation and no launch: T stays symbolic, and Cs[T][T] keeps its
// row size T (Cs[ty][tx] of two threads never collide for any T).
template <int T>
__global__ void tile_rows_any_size(const float* in, float* out) {
    __shared__ float Cs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int block = blockIdx.y * gridDim.x + blockIdx.x;
    if (tx < T && ty < T) {
        Cs[ty][tx] = in[block * T * T + ty * T + tx];
    }
    __syncthreads();
    if (tx < T && ty < T) {
        out[block * T * T + ty * T + tx] = Cs[tx][ty];
    }
}
