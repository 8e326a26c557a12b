// Faial Claim 1, Test 1 (racy): a transpose benchmark that repeats the
// transpose `nreps` times (Listing 2.1 of the Faial paper).  The tile is
// loaded, the block synchronises, the tile is read back transposed -- but
// nothing separates the reads of repetition r from the writes of
// repetition r+1.  Witness: nreps >= 2, one thread still reading
// tile[0][8] (r = 0) while another thread already writes it (r = 1).
// syncscope-args: --block-dim 32,8 --grid-dim 16,16 -D TILE_DIM=32 -D BLOCK_ROWS=8
// expect-kernel: transpose_repeat_racy racy

__global__ void transpose_repeat_racy(float *odata, const float *idata, int nreps)
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
            tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width]; //~ data-race
        __syncthreads();
        for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
            odata[index_out + j * height] = tile[threadIdx.x][threadIdx.y + j]; //~ data-race
    }
}
