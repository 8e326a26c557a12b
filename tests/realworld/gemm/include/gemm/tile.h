// Tile geometry of the matrix kernels.
#ifndef GEMM_TILE_H
#define GEMM_TILE_H

constexpr int TILE = 16;
constexpr int MATVEC_BLOCK = 256;

enum { WARP_LANES = 32 };

#endif
