#pragma once
#include <cuda_runtime.h>
#include <curand_kernel.h>
#include <cuda_fp16.h>
#include "physics/stencil.cuh"

constexpr int CELLS_PER_SIDE = 64;

__device__ inline int cell_of(float4 p) {
    int cx = min(max(int(p.x * CELLS_PER_SIDE), 0), CELLS_PER_SIDE - 1);
    int cy = min(max(int(p.y * CELLS_PER_SIDE), 0), CELLS_PER_SIDE - 1);
    return cy * CELLS_PER_SIDE + cx;
}

__device__ inline float4 advance(float4 p, float4 v, float dt) {
    return make_float4(p.x + v.x * dt, p.y + v.y * dt, p.z + v.z * dt, p.w);
}
