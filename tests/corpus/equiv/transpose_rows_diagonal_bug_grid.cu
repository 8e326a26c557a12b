// Seeded bug: the diagonal ordering of transpose_rows_diagonal.cu on a grid
// that may be wider than tall (no two blocks take one tile, so it stays
// race-free). Tile row `blockIdx.x` then runs past the grid's rows, and the
// coordinates are no renumbering of the blocks (the query that they stay
// in the grid is satisfiable): a 3 x 2 grid transposes tiles the tiled
// kernel does not touch. Not equivalent.
// expect-kernel: transpose verified
#define TILE 32
#define ROWS 8
__global__ void transpose(float *out, const float *in, int width, int height) {
    __shared__ float tile[TILE][TILE + 1];
    __requires(blockDim.x == TILE && blockDim.y == ROWS);
    __requires(gridDim.y <= gridDim.x);
    int tile_y = blockIdx.x;
    int tile_x = (blockIdx.x + blockIdx.y) % gridDim.x;
    int col = tile_x * TILE + threadIdx.x;
    int row = tile_y * TILE + threadIdx.y;
    for (int r = 0; r < TILE; r += ROWS) {
        if (col < width && row + r < height) {
            tile[threadIdx.y + r][threadIdx.x] = in[(row + r) * width + col];
        }
    }
    __syncthreads();
    col = tile_y * TILE + threadIdx.x;
    row = tile_x * TILE + threadIdx.y;
    for (int r = 0; r < TILE; r += ROWS) {
        if (col < height && row + r < width) {
            out[(row + r) * height + col] = tile[threadIdx.x][threadIdx.y + r];
        }
    }
}
