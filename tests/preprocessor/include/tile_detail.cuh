// Included relatively from tile_config.cuh (same folder).
#ifndef TILE_DETAIL_CUH
#define TILE_DETAIL_CUH
#if TILE_W % 32 == 0 && TILE_H <= 32
#define TILE_WARPS (TILE_ELEMS / 32)
#else
#error "tile must be a whole number of warps"
#endif
static const int tile_warps = TILE_WARPS;
#endif
