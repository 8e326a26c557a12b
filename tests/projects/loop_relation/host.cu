// Host code of loop_relation/kernels.cu: each kernel launched once per
// level from a `while` loop that passes the level's length with a grid
// made from it.
#include <cuda_runtime.h>

__global__ void level_recomputed(float *out, unsigned half);
__global__ void level_halved(float *out, unsigned half);
__global__ void level_quartered(float *out, unsigned half);
__global__ void level_wrapped(float *out, unsigned half);
__global__ void level_short_entry(float *out, unsigned half);
__global__ void level_aliased(float *out, unsigned half);

static void rescale(unsigned *value)
{
    *value = *value / 3;
}

// The grid and block are made again from the new length at the end of
// each iteration, the way they were made before the loop.
void run_recomputed(float *out, unsigned length)
{
    unsigned count = length / 2;
    dim3 grid;
    dim3 block;
    if (count < 256) {
        block.x = count;
    } else {
        grid.x = count / 256;
        block.x = 256;
    }
    while (count != 0) {
        level_recomputed<<<grid, block>>>(out, count);
        count >>= 2;
        if (count < 256) {
            grid.x = 1;
            block.x = count;
        } else {
            grid.x = count / 256;
            block.x = 256;
        }
    }
}

// The length and the number of blocks halved together.
void run_halved(float *out, unsigned length)
{
    unsigned half = length;
    unsigned blocks = length / 128;
    while (blocks > 0) {
        level_halved<<<blocks, 128>>>(out, half);
        half /= 2;
        blocks /= 2;
    }
}

// The length shrinks faster than the grid: a later level's offset falls
// inside the grid.
void run_quartered(float *out, unsigned length)
{
    unsigned half = length;
    unsigned blocks = length / 128;
    while (blocks > 0) {
        level_quartered<<<blocks, 128>>>(out, half);
        half /= 4;
        blocks /= 2;
    }
}

// Both doubled: the length wraps around 2^32 before the grid does.
void run_wrapped(float *out, unsigned length)
{
    unsigned half = length;
    unsigned blocks = length / 128;
    while (blocks < 65536) {
        level_wrapped<<<blocks, 128>>>(out, half);
        half *= 2;
        blocks *= 2;
    }
}

// Kept by the body, but not true on entry.
void run_short_entry(float *out, unsigned length)
{
    unsigned half = length / 256;
    unsigned blocks = length / 128;
    while (blocks > 0) {
        level_short_entry<<<blocks, 128>>>(out, half);
        half /= 2;
        blocks /= 2;
    }
}

// A helper changes the length through a pointer taken before the loop.
void run_aliased(float *out, unsigned length)
{
    unsigned half = length;
    unsigned blocks = length / 128;
    unsigned *half_at = &half;
    while (blocks > 0) {
        level_aliased<<<blocks, 128>>>(out, half);
        rescale(half_at);
        blocks /= 2;
    }
}
