// transpose_rows_naive.cu in a unit that includes a system header outside
// the built-in model (<vendor/bitops.h>; the file is named for <strings.h>,
// which it used before that header joined the model): the kernel uses none
// of its names, so the unit is the program its build compiles and `equiv`
// compares it.
// expect-kernel: transpose verified
#include <vendor/bitops.h>
#define TILE 32
#define ROWS 8
__global__ void transpose(float *out, const float *in, int width, int height) {
    __requires(blockDim.x == TILE && blockDim.y == ROWS);
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    for (int r = 0; r < TILE; r += ROWS) {
        if (col < width && row + r < height) {
            out[col * height + (row + r)] = in[(row + r) * width + col];
        }
    }
}
