// Transposes each 16 x 16 tile but leaves the tiles where they were (tile
// (i, j) of the output is tile (i, j) of the input, transposed): the whole
// matrix is transposed only when it is one tile. Launched as
// transpose_tiled.cu launches its kernel; not equivalent to it,
// which only a grid of several tiles shows (the solver's launch, asked
// again for a small grid, replays the difference on 4 x 4 tiles).
// expect-kernel: transpose verified
#define TILE 16
#define ROWS 8
__global__ void transpose(float *out, const float *in, int w, int h) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    int at = x + y * w;
    for (int r = 0; r < TILE; r += ROWS) {
        tile[threadIdx.y + r][threadIdx.x] = in[at + r * w];
    }
    __syncthreads();
    for (int r = 0; r < TILE; r += ROWS) {
        out[at + r * h] = tile[threadIdx.x][threadIdx.y + r];
    }
}

void run(float *out, const float *in, int w, int h) {
    if (w != h || w % TILE != 0 || h % TILE != 0) {
        return;
    }
    dim3 grid(w / TILE, h / TILE), block(TILE, ROWS);
    transpose<<<grid, block>>>(out, in, w, h);
}
