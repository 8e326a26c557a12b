// A kernel that takes a name from a system header outside the built-in
// model (`ffs` of a vendor's <vendor/bitops.h>; the file is named for
// <strings.h>, which it used before that header joined the model): its
// value is unknown, so `equiv` refuses the pair, naming it.
// expect-kernel: transpose not-verified
#include <vendor/bitops.h>
#define TILE 32
#define ROWS 8
__global__ void transpose(float *out, const float *in, int width, int height) {
    __requires(blockDim.x == TILE && blockDim.y == ROWS);
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y + ffs(0);
    for (int r = 0; r < TILE; r += ROWS) {
        if (col < width && row + r < height) {
            out[col * height + (row + r)] = in[(row + r) * width + col]; //~ not-verified
        }
    }
}
