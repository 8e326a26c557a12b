// PUG-para's naiveTranspose (CUDA SDK 2.0 "transpose", simplified): each
// thread copies one element from idata[x + width*y] to odata[y + height*x].
// With a 2-D grid of 2-D blocks, (x, y) identify the thread uniquely and the
// guard keeps y < height, so the output index is injective.
// The launch is fixed to 2-D (a symbolic launch would allow blockDim.z or
// gridDim.z > 1, and threads differing only in z would write the same cell).
// syncscope-args: --block-dim 16,16 --grid-dim 8,8
// expect-kernel: naive_transpose verified

__global__ void naive_transpose(int *odata, const int *idata, int width, int height)
{
    int xIndex = blockIdx.x * blockDim.x + threadIdx.x;
    int yIndex = blockIdx.y * blockDim.y + threadIdx.y;
    if (xIndex < width && yIndex < height) {
        int index_in = xIndex + width * yIndex;
        int index_out = yIndex + height * xIndex;
        odata[index_out] = idata[index_in];
    }
}
