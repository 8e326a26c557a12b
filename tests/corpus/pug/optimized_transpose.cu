// PUG-para's OptimizedTranspose: the tile is staged through shared memory so
// that both the global read and the global write are coalesced; the extra
// column avoids bank conflicts.  Two rounds (barrier intervals) separated by
// one barrier, which is needed (the read-back tile[tx][ty] meets the load
// tile[ty][tx] of another thread).  PUG's hidden assumption -- square blocks
// -- holds here.
// syncscope-args: --block-dim 16,16 --grid-dim 8,8 -D BDIM=16
// expect-kernel: optimized_transpose verified

__global__ void optimized_transpose(int *odata, const int *idata, int width, int height)
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
        odata[index_out] = block[threadIdx.x][threadIdx.y];
    }
}
