// A host check that ends the process (`exit`, `abort`) when it fails holds
// at every launch after it: `square_tiles` writes its output transposed,
// race-free only for square matrices, and the host exits unless the matrix
// is square. `square_tiles_warned` is the same kernel whose host only
// prints a warning for a matrix that is not square and launches anyway.
// expect-kernel: square_tiles verified
// expect-kernel: square_tiles_warned racy
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define EDGE 32
#define ROWS 8

__global__ void square_tiles(float *out, const float *in, int width, int height)
{
    __shared__ float tile[EDGE][EDGE + 1];
    int x = blockIdx.x * EDGE + threadIdx.x;
    int y = blockIdx.y * EDGE + threadIdx.y;
    int at = x + y * width;
    for (int r = 0; r < EDGE; r += ROWS) {
        tile[threadIdx.y + r][threadIdx.x] = in[at + r * width];
    }
    __syncthreads();
    for (int r = 0; r < EDGE; r += ROWS) {
        out[at + r * height] = tile[threadIdx.x][threadIdx.y + r];
    }
}

__global__ void square_tiles_warned(float *out, const float *in, int width, int height)
{
    __shared__ float tile[EDGE][EDGE + 1];
    int x = blockIdx.x * EDGE + threadIdx.x;
    int y = blockIdx.y * EDGE + threadIdx.y;
    int at = x + y * width;
    for (int r = 0; r < EDGE; r += ROWS) {
        tile[threadIdx.y + r][threadIdx.x] = in[at + r * width];
    }
    __syncthreads();
    for (int r = 0; r < EDGE; r += ROWS) {
        out[at + r * height] = tile[threadIdx.x][threadIdx.y + r]; //~ data-race
    }
}

int main(int argc, char **argv)
{
    int cols = argc > 2 ? atoi(argv[1]) : 1024;
    int rows = argc > 2 ? atoi(argv[2]) : 1024;
    if (cols != rows) {
        fprintf(stderr, "only square matrices\n");
        exit(EXIT_FAILURE);
    }
    if (cols % EDGE != 0) {
        abort();
    }
    dim3 grid(cols / EDGE, rows / EDGE), threads(EDGE, ROWS);
    float *in, *out;
    cudaMalloc((void **)&in, sizeof(float) * cols * rows);
    cudaMalloc((void **)&out, sizeof(float) * cols * rows);
    square_tiles<<<grid, threads>>>(out, in, cols, rows);
    cudaDeviceSynchronize();
    return 0;
}

void run_warned(float *out, const float *in, int cols, int rows)
{
    if (cols != rows) {
        fprintf(stderr, "warning: not square, the result is undefined\n");
    }
    dim3 grid(cols / EDGE, rows / EDGE), threads(EDGE, ROWS);
    square_tiles_warned<<<grid, threads>>>(out, in, cols, rows);
}
