// Arrays inside a `__shared__` struct: each array member is an array of its
// own (members of a struct never overlap), one per block.  Arrays inside a
// union overlap each other: the union is one array of bytes (unions.cu).
//  * tile_transpose:      a struct holding the tile and a pad, barrier
//                         between the writes and the reads: verified.
//  * tile_transpose_racy: the barrier is missing: racy.
//  * union_view:          float and int views of one union, barrier
//                         between them: verified.
// syncscope-args: --block-dim 32,8 --grid-dim 16,16
// expect-kernel: tile_transpose verified
// expect-kernel: tile_transpose_racy racy
// expect-kernel: union_view verified

#define TILE_DIM 32
#define BLOCK_ROWS 8

struct TileStorage {
    float tile[TILE_DIM][TILE_DIM + 1];
    int rows_done;
};

union Bits {
    float f[TILE_DIM];
    int i[TILE_DIM];
};

__global__ void tile_transpose(float *odata, const float *idata)
{
    __shared__ TileStorage smem;
    int width = gridDim.x * TILE_DIM;
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        smem.tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        odata[(y + j) * width + x] = smem.tile[threadIdx.x][threadIdx.y + j];
}

__global__ void tile_transpose_racy(float *odata, const float *idata)
{
    __shared__ TileStorage smem;
    int width = gridDim.x * TILE_DIM;
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        smem.tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x]; //~ data-race
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        odata[(y + j) * width + x] = smem.tile[threadIdx.x][threadIdx.y + j]; //~ data-race
}

__global__ void union_view(float *out)
{
    __shared__ Bits bits;
    int block = blockIdx.y * gridDim.x + blockIdx.x;
    if (threadIdx.y == 0)
        bits.f[threadIdx.x] = out[block * TILE_DIM + threadIdx.x];
    __syncthreads();
    if (threadIdx.y == 0)
        out[block * TILE_DIM + threadIdx.x] = bits.i[(threadIdx.x + 1) % TILE_DIM];
}
