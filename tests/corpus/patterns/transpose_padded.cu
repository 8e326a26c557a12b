// Coalesced matrix transpose through a [32][33] shared tile (the extra
// column avoids bank conflicts), with 32 x 8 threads per block, each thread
// moving four elements.  One barrier between the load and the store; needed.
// syncscope-args: --block-dim 32,8 --grid-dim 16,16 -D TILE_DIM=32 -D BLOCK_ROWS=8
// expect-kernel: transpose_padded verified

__global__ void transpose_padded(float *odata, const float *idata)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    const int width = gridDim.x * TILE_DIM;
    const int height = gridDim.y * TILE_DIM;

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];

    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
