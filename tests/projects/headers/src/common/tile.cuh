// Tile geometry and the project's barrier and index macros.
#pragma once
#include "detail/math.cuh"

#define TILE 16
#define SYNC() __syncthreads()
#define AT(r, c) ((r) * TILE + (c))
