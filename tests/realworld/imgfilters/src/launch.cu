// Host launch code of the filters (the sizes the kernels are run with).
#include <cassert>
#include <cuda_runtime.h>
#include "imgfilters/config.cuh"

__global__ void box_blur_rows(const float* in, float* out, int width);
__global__ void box_blur_rows_unsynced(const float* in, float* out, int width);
__global__ void smooth_2d(const float* in, float* out, int width, int height);
__global__ void histogram_shared(const unsigned char* pixels, unsigned int* bins, int n);
__global__ void transpose_tiled(float* out, const float* in, int width, int height);
__global__ void transpose_naive(float* out, const float* in, int width, int height);

void run_filters(const float* img, float* tmp, float* out, unsigned char* gray,
                 unsigned int* bins, int width, int height, cudaStream_t stream) {
    dim3 rows((width + BLOCK_X - 1) / BLOCK_X, height);
    box_blur_rows<<<rows, BLOCK_X, 0, stream>>>(img, tmp, width);
    box_blur_rows_unsynced<<<rows, BLOCK_X, 0, stream>>>(img, tmp, width);

    dim3 block(BLOCK_X, BLOCK_Y);
    dim3 grid((width + BLOCK_X - 3) / (BLOCK_X - 2), (height + BLOCK_Y - 3) / (BLOCK_Y - 2));
    smooth_2d<<<grid, block, 0, stream>>>(tmp, out, width, height);

    histogram_shared<<<64, 256, 0, stream>>>(gray, bins, width * height);

    if (width % TILE_DIM != 0 || height % TILE_DIM != 0) {
        return;
    }
    dim3 tgrid(width / TILE_DIM, height / TILE_DIM);
    dim3 tblock(TILE_DIM, BLOCK_ROWS);
    transpose_tiled<<<tgrid, tblock, 0, stream>>>(out, img, width, height);

    dim3 nblock(16, 16);
    dim3 ngrid((width + 15) / 16, (height + 15) / 16);
    transpose_naive<<<ngrid, nblock, 0, stream>>>(out, img, width, height);
}
