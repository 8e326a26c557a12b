// A naive transpose launched with TILE x TILE blocks (TILE from a header in
// ../include, found with -I): one version of the pair `syncscope equiv`
// proves equivalent to transpose_tiled.cu (tests/equiv.rs).
// syncscope-args: -I ../include
// expect-kernel: transpose verified
#include <transpose_tile.cuh>

__global__ void transpose(float *out, const float *in, int width, int height) {
    __requires(blockDim.x == TILE && blockDim.y == TILE);
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < width && y < height) {
        out[x * height + y] = in[y * width + x];
    }
}
