// A kernel file as projects write them: a header found with -I include
// (angled), a size from the command line (-DBLOCK_ROWS=4), arch-guarded
// paths, a debug macro that compiles away, and a launch in host code.
#include <cuda_runtime.h>
#include <tile_config.cuh>

#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif

#ifdef DEBUG_KERNELS
#define KCHECK(cond) do { if (!(cond)) __trap(); } while (0)
#else
#define KCHECK(cond) do { } while (0)
#endif

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600
#define ATOMIC_ADD(p, v) atomicAdd((p), (v))
#else
#define ATOMIC_ADD(p, v) legacy_atomic_add((p), (v))
#endif

template <int ROWS>
__global__ void column_sums(float *sums, const float *in, int width)
{
    __shared__ float part[ROWS][TILE_W + 1];
    int x = blockIdx.x * TILE_W + threadIdx.x;
    KCHECK(x < width);
    float acc = 0.0f;
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
        acc += in[(threadIdx.y * ROWS + r) * width + x];
    part[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0) {
        float s = 0.0f;
        for (int r = 0; r < blockDim.y; ++r)
            s += part[r][threadIdx.x];
        ATOMIC_ADD(&sums[x], s);
    }
}

void launch_column_sums(float *sums, const float *in, int width, cudaStream_t stream)
{
    dim3 block(TILE_W, BLOCK_ROWS);
    dim3 grid((width + TILE_W - 1) / TILE_W);
    column_sums<BLOCK_ROWS><<<grid, block, 0, stream>>>(sums, in, width);
}
