// Tiled transpose with a 32 x 8 block: a loop stages the 32 x 32 tile in
// shared memory eight rows at a time, and after the barrier a second loop
// writes it out transposed, both coalesced. Each loop writes disjoint cells
// on every iteration; the second reads what the first wrote in another
// iteration of another loop. Equivalent to transpose_rows_naive.cu.
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
        if (col < height && row + r < width) {
            out[(row + r) * height + col] = tile[threadIdx.x][threadIdx.y + r];
        }
    }
}
