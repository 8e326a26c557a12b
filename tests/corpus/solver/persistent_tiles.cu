// Persistent blocks walking the tiles of an image: block b takes tiles b,
// b + gridDim.x, ... in turn, each tile placed at row `tile / across` and
// column `tile % across` (`across` a run-time parameter), the pixel at
// `width * y + x` under `x < width && y < height`. The quotient and the
// remainder of one tile number sit in different digits of the index (the
// row in the digit of `width`, the column beside the thread's x), and
// together give back the tile, hence the block and its round: decided
// without the solver. The value written comes from an escape-time count
// with an early `return` per unrolled step, each merged value built on
// the one before (shared subexpressions, walked once each).
//  * shade_tiles:          every pixel has one writer: verified.
//  * shade_every_tile:     every block walks every tile (the tile is no
//                          function of the block): racy.
// syncscope-args: --block-dim 16,16
// expect-kernel: shade_tiles verified
// expect-kernel: shade_every_tile racy

__device__ int escape_steps(float cx, float cy, int limit)
{
    float x = 0.0f, y = 0.0f;
    int left = limit;
    do {
        if (x * x + y * y > 4.0f) return left - 1;
        y = 2.0f * x * y + cy; x = x * x - y * y + cx;
        if (x * x + y * y > 4.0f) return left - 2;
        y = 2.0f * x * y + cy; x = x * x - y * y + cx;
        if (x * x + y * y > 4.0f) return left - 3;
        y = 2.0f * x * y + cy; x = x * x - y * y + cx;
        if (x * x + y * y > 4.0f) return left - 4;
        y = 2.0f * x * y + cy; x = x * x - y * y + cx;
        if (x * x + y * y > 4.0f) return left - 5;
        y = 2.0f * x * y + cy; x = x * x - y * y + cx;
        if (x * x + y * y > 4.0f) return left - 6;
        y = 2.0f * x * y + cy; x = x * x - y * y + cx;
        if (x * x + y * y > 4.0f) return left - 7;
        y = 2.0f * x * y + cy; x = x * x - y * y + cx;
        if (x * x + y * y > 4.0f) return left - 8;
        y = 2.0f * x * y + cy; x = x * x - y * y + cx;
        if (x * x + y * y > 4.0f) return left - 9;
        y = 2.0f * x * y + cy; x = x * x - y * y + cx;
        if (x * x + y * y > 4.0f) return left - 10;
        y = 2.0f * x * y + cy; x = x * x - y * y + cx;
        if (x * x + y * y > 4.0f) return left - 11;
        y = 2.0f * x * y + cy; x = x * x - y * y + cx;
        if (x * x + y * y > 4.0f) return left - 12;
        y = 2.0f * x * y + cy; x = x * x - y * y + cx;
        left -= 12;
        if (left <= 0 || x * x + y * y > 4.0f) return left;
        y = 2.0f * x * y + cy; x = x * x - y * y + cx;
    } while (1);
}

__global__ void shade_tiles(int *image, int width, int height, int across, int tiles,
                            float step, int limit)
{
    for (unsigned tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const unsigned row = tile / across;
        const unsigned col = tile % across;
        const int x = blockDim.x * col + threadIdx.x;
        const int y = blockDim.y * row + threadIdx.y;
        if (x < width && y < height) {
            int n = escape_steps(x * step, y * step, limit);
            image[width * y + x] = n > 0 ? limit - n : 0;
        }
    }
}

__global__ void shade_every_tile(int *image, int width, int height, int across, int tiles)
{
    for (unsigned tile = 0; tile < tiles; tile++) {
        const unsigned row = tile / across;
        const unsigned col = tile % across;
        const int x = blockDim.x * col + threadIdx.x;
        const int y = blockDim.y * row + threadIdx.y;
        if (x < width && y < height) {
            image[width * y + x] = blockIdx.x; //~ data-race
        }
    }
}
