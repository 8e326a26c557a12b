// The tiled transpose with the padding column dropped: bank conflicts come
// back, but padding only changes the tile's layout, not what any thread
// reads back, so it is still equivalent to the naive transpose (MANIFEST).
// expect-kernel: transpose verified
#define TILE 16
__global__ void transpose(float *out, const float *in, int width, int height) {
    __shared__ float tile[TILE][TILE];
    __requires(blockDim.x == TILE && blockDim.y == TILE);
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < width && y < height) {
        tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < height && y < width) {
        out[y * height + x] = tile[threadIdx.x][threadIdx.y];
    }
}
