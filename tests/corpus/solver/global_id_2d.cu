// Must-show kernel 3 of issue 20: the 2-D global id `y * w + x` with
// symbolic launch sizes. With 0 <= x < w the pair (x, y) is recovered from
// y * w + x, and (x, y) is a pair of 1-D global ids: verified.
// `missing_column_guard` forgets `x < w`: a thread past the right edge of
// row y writes the first cells of row y + 1: racy.
// expect-kernel: scale_image verified
// expect-kernel: missing_column_guard racy

__global__ void scale_image(const float *in, float *out, int w, int h, float k)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h)
        out[y * w + x] = k * in[y * w + x];
}

__global__ void missing_column_guard(float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y < h)
        out[y * w + x] = (float)x; //~ data-race
}
