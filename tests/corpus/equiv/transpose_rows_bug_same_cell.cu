// Seeded bug: the store loop forgets its row offset, so every iteration
// writes the same cell and the last one stays (not a map of disjoint cells).
// expect-kernel: transpose verified
#define TILE 32
#define ROWS 8
__global__ void transpose(float *out, const float *in, int width, int height) {
    __shared__ float tile[TILE][TILE + 1];
    __requires(blockDim.x == TILE && blockDim.y == ROWS);
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    for (int r = 0; r < TILE; r += ROWS) {
        if (col < width && row + r < height) {
            tile[threadIdx.y + r][threadIdx.x] = in[(row + r) * width + col];
        }
    }
    __syncthreads();
    col = blockIdx.y * TILE + threadIdx.x;
    row = blockIdx.x * TILE + threadIdx.y;
    for (int r = 0; r < TILE; r += ROWS) {
        if (col < height && row < width) {
            out[row * height + col] = tile[threadIdx.x][threadIdx.y + r];
        }
    }
}
