// A division or remainder by zero is undefined behaviour: where a thread
// evaluates `x / d`, no execution has `d == 0`. Only where it evaluates
// it: a division in an arm of `?:` not taken, behind `&&` whose left side
// is false, or after the thread returned, says nothing about `d`.
// expect-kernel: persistent_tiles verified
// expect-kernel: persistent_tiles_overlap racy
// expect-kernel: zero_divisor_in_untaken_arm racy
// expect-kernel: zero_divisor_behind_and racy
// expect-kernel: divided_after_return racy

// Blocks walk the tiles of an image (a grid smaller than the tile count);
// a tile's column and row are the tile number's remainder and quotient by
// the number of tiles across. With `tilesAcross == 0` the remainder would
// be undefined, so distinct tiles are distinct pixels.
__global__ void persistent_tiles(float *dst, int width, int height, int tilesAcross,
                                 int tileCount)
{
    for (unsigned int tile = blockIdx.x; tile < tileCount; tile += gridDim.x) {
        unsigned int col = tile % tilesAcross;
        unsigned int row = tile / tilesAcross;
        const int x = blockDim.x * col + threadIdx.x;
        const int y = blockDim.y * row + threadIdx.y;
        if (x < width && y < height) {
            dst[width * y + x] = 1.0f;
        }
    }
}

// Two neighbouring threads share a pixel, each writing its own index: a
// race for any nonzero divisor.
__global__ void persistent_tiles_overlap(float *dst, int width, int height, int tilesAcross,
                                         int tileCount)
{
    // A few tiles: the witness's loop stays short enough to replay.
    __requires(tileCount >= 0 && tileCount <= 16);
    for (unsigned int tile = blockIdx.x; tile < tileCount; tile += gridDim.x) {
        unsigned int col = tile % tilesAcross;
        unsigned int row = tile / tilesAcross;
        const int x = blockDim.x * col + threadIdx.x / 2;
        const int y = blockDim.y * row + threadIdx.y;
        if (x < width && y < height) {
            dst[width * y + x] = (float)threadIdx.x; //~ data-race
        }
    }
}

// With `d == 0` the division is not evaluated and every thread writes
// slot 0; with any other `d` each thread writes its own slot.
__global__ void zero_divisor_in_untaken_arm(int *out, int d)
{
    int slot = d != 0 ? (int)(threadIdx.x * d) / d : 0;
    out[slot] = threadIdx.x; //~ data-race
}

// The same behind `&&`: a false left side leaves the right unevaluated.
__global__ void zero_divisor_behind_and(int *out, int d)
{
    if (d != 0 && (int)(threadIdx.x * d) / d == threadIdx.x) {
        out[threadIdx.x + 1] = 1; //~ benign-race
    } else {
        out[0] = threadIdx.x; //~ data-race
    }
}

// Thread 0 returns before the division by its index: the others divide,
// and thread 0's write still races with thread 1's.
__global__ void divided_after_return(int *out, int n)
{
    out[0] = threadIdx.x; //~ data-race
    if (threadIdx.x == 0) {
        return;
    }
    out[n / threadIdx.x] = 1; //~ benign-race
}
