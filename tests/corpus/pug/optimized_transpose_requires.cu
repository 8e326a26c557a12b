// OptimizedTranspose with its assumptions stated in the kernel instead of
// fixed launch sizes: square 2-D blocks of BDIM x BDIM threads and a 2-D
// grid.  The grid size stays symbolic.
// syncscope-args: -D BDIM=16
// expect-kernel: optimized_transpose_requires verified

__global__ void optimized_transpose_requires(int *odata, const int *idata, int width, int height)
{
    __requires(blockDim.x == BDIM && blockDim.y == BDIM && blockDim.z == 1);
    __requires(gridDim.z == 1);
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
