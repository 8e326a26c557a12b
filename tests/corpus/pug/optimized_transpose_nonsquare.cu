// PUG-para reports a bug in OptimizedTranspose when the block is not square:
// the output column is blockIdx.y * blockDim.y + threadIdx.x, and with
// blockDim = 16 x 8 the threadIdx.x range (0..15) overlaps the next block
// row's range -- thread (8, 0) of block (0, 0) and thread (0, 0) of block
// (0, 1) write the same odata cell.  (Shared memory stays race-free.)
// syncscope-args: --block-dim 16,8 --grid-dim 8,8 -D BDIM=16
// expect-kernel: optimized_transpose_nonsquare racy

__global__ void optimized_transpose_nonsquare(int *odata, const int *idata, int width, int height)
{
    __shared__ int block[BDIM][BDIM + 1];

    int xIndex = blockIdx.x * blockDim.x + threadIdx.x;
    int yIndex = blockIdx.y * blockDim.y + threadIdx.y;
    if (xIndex < width && yIndex < height) {
        int index_in = yIndex * width + xIndex;
        block[threadIdx.y][threadIdx.x] = idata[index_in];
    }
    __syncthreads();

    xIndex = blockIdx.y * blockDim.y + threadIdx.x;
    yIndex = blockIdx.x * blockDim.x + threadIdx.y;
    if (xIndex < height && yIndex < width) {
        int index_out = yIndex * height + xIndex;
        odata[index_out] = block[threadIdx.x][threadIdx.y]; //~ data-race
    }
}
