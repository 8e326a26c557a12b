// Host code of loop_relation/kernels.cu: each kernel launched once per
// level from a `while` loop that passes the level's length with a grid
// made from it.
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void level_recomputed(float *out, unsigned half);
__global__ void level_halved(float *out, unsigned half);
__global__ void level_quartered(float *out, unsigned half);
__global__ void level_wrapped(float *out, unsigned half);
__global__ void level_short_entry(float *out, unsigned half);
__global__ void level_aliased(float *out, unsigned half);
__global__ void level_capped(float *out, unsigned half);
__global__ void level_skipping(float *out, unsigned half);
__global__ void level_last_levels(float *out, unsigned half);

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

// Blocks of at most 512 threads, the grid chosen by a conditional; the
// body also sizes its shared memory, prints in a loop of its own and may
// leave early.
void run_capped(float *out, unsigned length)
{
    unsigned n = length / 2;
    dim3 grid;
    dim3 block(n);
    if (n > 512) {
        grid.x = n / 512;
        block.x = 512;
    }
    while (n != 0) {
        unsigned bytes = 2 * block.x * sizeof(float);
        level_capped<<<grid, block, bytes>>>(out, n);
        for (int i = 0; i < 2; ++i) {
            printf("level %u of %u\n", n, bytes);
        }
        if (cudaDeviceSynchronize() != cudaSuccess) {
            break;
        }
        n >>= 9;
        grid.x = n > 512 ? n / 512 : 1;
        if (grid.x == 1) {
            block.x = n;
        } else {
            block.x = 512;
        }
    }
}

// A `continue` skips halving the blocks after the length was halved.
void run_skipping(float *out, unsigned length, int skip)
{
    unsigned half = length;
    unsigned blocks = length / 128;
    while (blocks > 0) {
        level_skipping<<<blocks, 128>>>(out, half);
        half /= 2;
        if (skip) {
            continue;
        }
        blocks /= 2;
    }
}

// The last levels divide the length by 8 while the blocks only halve
// (the `else` branch, a comment before its statement, is run too).
void run_last_levels(float *out, unsigned length)
{
    unsigned half = length;
    unsigned blocks = length / 128;
    while (blocks > 0) {
        level_last_levels<<<blocks, 128>>>(out, half);
        blocks /= 2;
        if (blocks > 4)
            half /= 2;
        else /* the last levels */
            half /= 8;
    }
}
