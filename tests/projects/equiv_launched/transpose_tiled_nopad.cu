// transpose_tiled.cu with an unpadded tile, launched the same
// way (the same grid from the same sizes).
// expect-kernel: transpose verified
#define TILE 16
#define ROWS 8
__global__ void transpose(float *out, const float *in, int w, int h) {
    __shared__ float tile[TILE][TILE];
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
