// Seeded bug that small launches do not show: the store is skipped past
// row 100 of `out` (a bound left over from debugging). The small concrete
// launches of `equiv` never reach it; the proof's query for a location one
// version writes and the other does not is satisfiable, and the launch the
// solver gives (a grid wide enough for 101 columns) replays on the concrete
// interpreter. Not equivalent to the naive transpose (MANIFEST).
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
    if (x < height && y < width && y < 100) {
        out[y * height + x] = tile[threadIdx.x][threadIdx.y];
    }
}
