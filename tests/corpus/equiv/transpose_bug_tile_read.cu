// Seeded bug: the tile is read back as it was written (tile[ty][tx]) instead
// of transposed (tile[tx][ty]): each tile is copied, not transposed. Not
// equivalent to the naive transpose (MANIFEST). `check` hints at it: each
// thread now reads back only what it wrote itself, so the barrier is redundant.
// expect-kernel: transpose verified
#define TILE 16
__global__ void transpose(float *out, const float *in, int width, int height) {
    __shared__ float tile[TILE][TILE + 1];
    __requires(blockDim.x == TILE && blockDim.y == TILE);
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < width && y < height) {
        tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    }
    __syncthreads(); //~ redundant-barrier
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < height && y < width) {
        out[y * height + x] = tile[threadIdx.y][threadIdx.x];
    }
}
