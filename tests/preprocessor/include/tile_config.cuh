// Guarded by a macro and by `#pragma once`: included twice, read once.
#pragma once
#ifndef TILE_CONFIG_CUH
#define TILE_CONFIG_CUH

#define TILE_W 32 // threads along x
#define TILE_H 8  /* rows per thread block */
#define TILE_ELEMS (TILE_W * TILE_H) // derived: another macro's name
#define PAD(n) \
    ((n) + 1)   /* one column more: no bank conflicts */
#define SHARED_ROW PAD(TILE_W)

#include "tile_detail.cuh"

#endif /* TILE_CONFIG_CUH */
