// Coalesced matrix transpose through shared memory.
//
//   syncscope check examples/transpose.cu
//
// A block of 32 x 8 threads moves a 32 x 32 tile: it reads rows of the input
// (coalesced), stages them in a shared tile, and writes rows of the output
// (coalesced again) by reading the tile column-wise.  The tile has 33
// columns so that the column-wise reads hit 32 different banks.  TILE_DIM
// and BLOCK_ROWS come from the command line.
//
// Syncscope proves it race-free: the loads write tile[ty + j][tx] (distinct
// for every thread and j), the one barrier orders them before the transposed
// reads, and the global writes hit distinct cells for distinct threads.
//
// The `syncscope-args` line below fixes the launch for this file:
// `syncscope check` applies it when the command line gives no launch sizes
// or macros. The `expect-kernel` line is a test marker: the test suite
// (tests/corpus.rs) expects that verdict.
//
// syncscope-args: --block-dim 32,8 --grid-dim 64,64 -D TILE_DIM=32 -D BLOCK_ROWS=8
// expect-kernel: transpose verified

__global__ void transpose(float *out, const float *in)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    const int width = gridDim.x * TILE_DIM;   // input columns
    const int height = gridDim.y * TILE_DIM;  // input rows

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];

    __syncthreads();

    // Swap the block coordinates: this block writes the mirrored tile.
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
