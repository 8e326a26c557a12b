// Faial Claim 1, Test 1 (DRF): the repeated transpose of
// test1_transpose_repeat_racy.cu with a second barrier after the read-back
// loop, so repetition r+1 cannot overwrite the tile while repetition r still
// reads it.  Both barriers are needed: removing the first races the load with
// the read-back of the same repetition, removing the second brings back the
// inter-iteration race.
// syncscope-args: --block-dim 32,8 --grid-dim 16,16 -D TILE_DIM=32 -D BLOCK_ROWS=8
// expect-kernel: transpose_repeat_drf verified

__global__ void transpose_repeat_drf(float *odata, const float *idata, int nreps)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    const int width = gridDim.x * TILE_DIM;
    const int height = gridDim.y * TILE_DIM;

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    const int index_in = x + y * width;

    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    const int index_out = x + y * height;

    for (int r = 0; r < nreps; r++) {
        for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
            tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];
        __syncthreads();
        for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
            odata[index_out + j * height] = tile[threadIdx.x][threadIdx.y + j];
        __syncthreads();
    }
}
