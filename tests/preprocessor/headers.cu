// Includes: relative ("include/..."), through -I (vendor/c_api.h, found
// with -I vendor), system headers (given the same stand-in folder -I sys),
// a header included twice (guard and #pragma once), and an #include whose
// name is a macro.
#include <strings.h>
#include <stdio.h>
#include <cuda_runtime.h>
#include "include/tile_config.cuh"
#include "include/tile_config.cuh"
#include "c_api.h"
#define DETAIL_HEADER "include/tile_detail.cuh"
#include DETAIL_HEADER

__global__ void transpose_tile(float *out, const float *in, int width)
{
    __shared__ float tile[TILE_H][SHARED_ROW];
    int x = blockIdx.x * TILE_W + threadIdx.x;
    for (int j = 0; j < TILE_W; j += TILE_H)
        tile[threadIdx.y + j][threadIdx.x] = in[(blockIdx.y * TILE_W + threadIdx.y + j) * width + x];
    __syncthreads();
    out[x] = tile[threadIdx.x % TILE_H][threadIdx.y] * tile_warps * TILE_WARPS;
}
