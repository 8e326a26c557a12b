// Host code of pow2_helpers/kernels.cu: block sizes rounded up by helpers.
#include <cuda_runtime.h>

__global__ void fold_doubled(float *sums, const float *in);
__global__ void fold_smeared(float *sums, const float *in);
__global__ void fold_shifted(float *sums, const float *in);
__global__ void fold_rounded(float *sums, const float *in);

// The least power of two at least n (1 for 0).
static unsigned ceil_pow2(unsigned n)
{
    unsigned p = 1;
    while (p < n) {
        p <<= 1;
    }
    return p;
}

// The same by smearing the top bit of n - 1 down (0 for 0).
static unsigned int round_pow2(unsigned int n)
{
    --n;
    n |= n >> 1;
    n |= n >> 2;
    n |= n >> 4;
    n |= n >> 8;
    n |= n >> 16;
    return n + 1;
}

// 2^k, capped at 512 threads.
static unsigned pow2_of(unsigned k)
{
    if (k > 9) {
        return 512;
    }
    return 1u << k;
}

// Up to a whole number of warps: 96 for 70.
static unsigned warp_multiple(unsigned n)
{
    unsigned p = 32;
    while (p < n) {
        p += 32;
    }
    return p;
}

void sum_blocks(float *sums, const float *in, unsigned count, unsigned blocks, unsigned k)
{
    unsigned threads = ceil_pow2(count);
    fold_doubled<<<blocks, threads, threads * sizeof(float)>>>(sums, in);
    dim3 block(round_pow2(count));
    fold_smeared<<<blocks, block, block.x * sizeof(float)>>>(sums, in);
    fold_shifted<<<blocks, pow2_of(k), 512 * sizeof(float)>>>(sums, in);
    unsigned width = warp_multiple(count);
    fold_rounded<<<blocks, width, width * sizeof(float)>>>(sums, in);
}
