// A C library's header, as C libraries write them: the declarations wrapped
// in `extern "C"` only when a C++ compiler (nvcc) reads it, the tile size
// defined with a comment after its value, and a guard plus `#pragma once`.
#pragma once
#ifndef HALO_API_H
#define HALO_API_H

#define HALO 16 // cells each side of a tile
#define TILE (64 + 2 * HALO) /* the whole tile, halo included */
#define ROW_OF(i) \
    ((i) / TILE)

#ifdef __cplusplus
extern "C" {
#endif

int halo_api_version(void);
void halo_api_launch(float *out, const float *in, int n);

#ifdef __cplusplus
}
#endif

#endif // HALO_API_H
