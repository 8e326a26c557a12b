// Naive transpose: each thread copies one element of `in` (height rows of
// width) to its transposed place in `out` (width rows of height). The reads
// are coalesced, the writes are not.
// expect-kernel: transpose verified
__global__ void transpose(float *out, const float *in, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        out[x * height + y] = in[y * width + x];
    }
}
