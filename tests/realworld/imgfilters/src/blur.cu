// Separable box blur along rows, a 2-D 5-point smoothing and a shared
// histogram. Tile sizes, the barrier macro and the index macro come from
// include/imgfilters (found through compile_commands.json's -I).
#include "imgfilters/config.cuh"
#include "imgfilters/util.cuh"

// expect-kernel: box_blur_rows verified
// expect-kernel: box_blur_rows_unsynced racy
// expect-kernel: smooth_2d verified
// expect-kernel: histogram_shared verified

// One row segment per block, RADIUS halo cells on each side.
__global__ void box_blur_rows(const float* in, float* out, int width) {
    __shared__ float tile[BLOCK_X + 2 * RADIUS];
    int x = blockIdx.x * BLOCK_X + threadIdx.x;
    int row = blockIdx.y;
    const float* line = in + row * width;
    tile[threadIdx.x + RADIUS] = line[clamp_index(x, 0, width - 1)];
    if (threadIdx.x < RADIUS) {
        tile[threadIdx.x] = line[clamp_index(x - RADIUS, 0, width - 1)];
        tile[threadIdx.x + BLOCK_X + RADIUS] = line[clamp_index(x + BLOCK_X, 0, width - 1)];
    }
    SYNC();
    float acc = 0.0f;
    for (int d = -RADIUS; d <= RADIUS; ++d) {
        acc += weight_of(d) * tile[threadIdx.x + RADIUS + d];
    }
    if (x < width) {
        out[IDX2(row, x, width)] = acc;
    }
}

// The same filter with the barrier forgotten: halo reads race with the
// neighbours' loads.
__global__ void box_blur_rows_unsynced(const float* in, float* out, int width) {
    __shared__ float tile[BLOCK_X + 2 * RADIUS];
    int x = blockIdx.x * BLOCK_X + threadIdx.x;
    int row = blockIdx.y;
    const float* line = in + row * width;
    tile[threadIdx.x + RADIUS] = line[clamp_index(x, 0, width - 1)];
    if (threadIdx.x < RADIUS) {
        tile[threadIdx.x] = line[clamp_index(x - RADIUS, 0, width - 1)];
        tile[threadIdx.x + BLOCK_X + RADIUS] = line[clamp_index(x + BLOCK_X, 0, width - 1)];
    }
    float acc = 0.0f;
    for (int d = -RADIUS; d <= RADIUS; ++d) {
        acc += weight_of(d) * tile[threadIdx.x + RADIUS + d];
    }
    if (x < width) {
        out[IDX2(row, x, width)] = acc;
    }
}

// Interior threads of a BLOCK_Y x BLOCK_X tile average their neighbours.
__global__ void smooth_2d(const float* in, float* out, int width, int height) {
    __shared__ float tile[BLOCK_Y][BLOCK_X];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * (BLOCK_X - 2) + tx;
    int y = blockIdx.y * (BLOCK_Y - 2) + ty;
    int cx = clamp_index(x, 0, width - 1);
    int cy = clamp_index(y, 0, height - 1);
    tile[ty][tx] = in[IDX2(cy, cx, width)];
    SYNC();
    bool interior = tx > 0 && tx < BLOCK_X - 1 && ty > 0 && ty < BLOCK_Y - 1;
    if (interior && x < width && y < height) {
        float s = tile[ty][tx] + tile[ty - 1][tx] + tile[ty + 1][tx] + tile[ty][tx - 1] +
                  tile[ty][tx + 1];
        out[IDX2(y, x, width)] = 0.2f * s;
    }
}

// Per-block histogram in shared memory, merged into the global one.
__global__ void histogram_shared(const unsigned char* pixels, unsigned int* bins, int n) {
    __shared__ unsigned int local[HIST_BINS];
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) {
        local[b] = 0;
    }
    SYNC();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&local[pixels[i] % HIST_BINS], 1u);
    }
    SYNC();
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) {
        atomicAdd(&bins[b], local[b]);
    }
}
