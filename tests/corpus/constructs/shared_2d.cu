// Static 2-D __shared__ arrays indexed tile[ty][tx].  The first kernel
// transposes the tile through shared memory (verified); in the second every
// thread of a row writes the row's first column (racy: threads (1, y) and
// (2, y) both write tile[y][0]).
// syncscope-args: --block-dim 16,16 --grid-dim 8,8
// expect-kernel: tile_transpose verified
// expect-kernel: tile_row_head racy

__global__ void tile_transpose(float *out, const float *in)
{
    __shared__ float tile[16][17];
    int tx = threadIdx.x, ty = threadIdx.y;
    int width = gridDim.x * 16;
    int x = blockIdx.x * 16 + tx;
    int y = blockIdx.y * 16 + ty;

    tile[ty][tx] = in[y * width + x];
    __syncthreads();
    out[y * width + x] = tile[tx][ty];
}

__global__ void tile_row_head(float *out, const float *in)
{
    __shared__ float tile[16][16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int width = gridDim.x * 16;
    int x = blockIdx.x * 16 + tx;
    int y = blockIdx.y * 16 + ty;

    tile[ty][0] = in[y * width + x]; //~ data-race
    __syncthreads();
    out[y * width + x] = tile[ty][0];
}
