// Must-show kernel 5 of issue 20: tiled matrix multiply, block shape given
// (16 x 16), grid symbolic. Each thread loads one element of each tile, the
// first barrier publishes the tiles, the second keeps the next load from
// overwriting a tile others still read; each thread writes its own C cell
// (row * n + col with col < n): verified.
// syncscope-args: --block-dim 16,16
// expect-kernel: matmul_tiled verified

#define TILE 16

__global__ void matmul_tiled(const float *a, const float *b, float *c, int n)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        as[ty][tx] = a[row * n + t * TILE + tx];
        bs[ty][tx] = b[(t * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            sum += as[ty][k] * bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n)
        c[row * n + col] = sum;
}
