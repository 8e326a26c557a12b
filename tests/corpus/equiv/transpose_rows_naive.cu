// Naive transpose, a 32 x 8 block covering a 32 x 32 tile: each thread
// copies four elements, rows `y`, `y + 8`, `y + 16`, `y + 24`, straight
// from `in` to their transposed place in `out`. A loop whose iterations
// write disjoint cells (a map): equivalent to transpose_naive.cu and to
// the tiled version (MANIFEST).
// expect-kernel: transpose verified
#define TILE 32
#define ROWS 8
__global__ void transpose(float *out, const float *in, int width, int height) {
    __requires(blockDim.x == TILE && blockDim.y == ROWS);
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    for (int r = 0; r < TILE; r += ROWS) {
        if (col < width && row + r < height) {
            out[col * height + (row + r)] = in[(row + r) * width + col];
        }
    }
}
