// Tiled transpose whose blocks take their tiles along diagonals (to spread
// the blocks of a wave over memory partitions): block (x, y) works on tile
// column (x + y) % gridDim.x of tile row x. On a square grid of tiles that
// numbers every tile once, so the result is the one of
// transpose_rows_tiled.cu; the proof renames the computed coordinates to
// the block index after two queries show them a bijection of the grid.
// expect-kernel: transpose verified
#define TILE 32
#define ROWS 8
__global__ void transpose(float *out, const float *in, int width, int height) {
    __shared__ float tile[TILE][TILE + 1];
    __requires(blockDim.x == TILE && blockDim.y == ROWS);
    __requires(gridDim.x == gridDim.y);
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
