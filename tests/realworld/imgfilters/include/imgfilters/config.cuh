// Tile sizes and indexing helpers shared by every filter of the project.
#pragma once

#define BLOCK_X 16
#define BLOCK_Y 16
#define RADIUS 2
#define TILE_DIM 32
#define BLOCK_ROWS 8

constexpr int HIST_BINS = 64;

// Barrier and index macros, as image code tends to hide them.
#define SYNC() __syncthreads()
#define IDX2(r, c, w) ((r) * (w) + (c))
