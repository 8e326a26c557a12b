// Seeded bug: the store bounds both coordinates by height (y < height where
// y now runs along width): on a matrix wider than tall, the last rows of
// `out` are never written; on one taller than wide, threads write past
// them, from tile entries no thread loaded. Not equivalent to the naive
// transpose (MANIFEST).
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
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < height && y < height) {
        out[y * height + x] = tile[threadIdx.x][threadIdx.y];
    }
}
