// Tiled transpose through shared memory (a padded tile, rows of 8: a
// 16 x 8 block moves a 16 x 16 tile), without bounds checks, launched by its
// own host code with a grid computed from the matrix sizes: `dim3 grid(w /
// 16, h / 16)` once the host has checked that the sizes are equal whole
// tiles. The launch's facts (`gridDim.x == w / 16`, ...) are compared under
// the hardware's limits on launch sizes: without them a negative `w` makes
// a grid past them (the unsigned conversion wraps) where the proof fails.
// expect-kernel: transpose verified
#define TILE 16
#define ROWS 8
__global__ void transpose(float *out, const float *in, int w, int h) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    int from = x + y * w;
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    int to = x + y * h;
    for (int r = 0; r < TILE; r += ROWS) {
        tile[threadIdx.y + r][threadIdx.x] = in[from + r * w];
    }
    __syncthreads();
    for (int r = 0; r < TILE; r += ROWS) {
        out[to + r * h] = tile[threadIdx.x][threadIdx.y + r];
    }
}

void run(float *out, const float *in, int w, int h) {
    if (w != h || w % TILE != 0 || h % TILE != 0) {
        return;
    }
    dim3 grid(w / TILE, h / TILE), block(TILE, ROWS);
    transpose<<<grid, block>>>(out, in, w, h);
}
