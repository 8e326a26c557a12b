// Seeded bug, dropped padding: the tile is one flat array of TILE rows of
// TILE + 1 (one padding column against bank conflicts) and is written with
// the padded row stride, but read back with the unpadded one (tx * TILE + ty
// instead of tx * (TILE + 1) + ty): most threads read another element, some
// a padding cell nobody wrote. Race-free, so `check` is content; not
// equivalent to the naive transpose (MANIFEST).
// expect-kernel: transpose verified
#define TILE 16
__global__ void transpose(float *out, const float *in, int width, int height) {
    __shared__ float tile[TILE * (TILE + 1)];
    __requires(blockDim.x == TILE && blockDim.y == TILE);
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < width && y < height) {
        tile[threadIdx.y * (TILE + 1) + threadIdx.x] = in[y * width + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < height && y < width) {
        out[y * height + x] = tile[threadIdx.x * TILE + threadIdx.y];
    }
}
