// Host code of host_helpers/kernels.cu: lengths checked to be powers of
// two by helpers with loops.
#include <assert.h>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define TILE 1024

__global__ void exchange_checked(unsigned *keys, unsigned len);
__global__ void exchange_asserted(unsigned *keys, unsigned len);
__global__ void exchange_by_four(unsigned *keys, unsigned len);
__global__ void slot_pairs(unsigned *out, const unsigned *in, unsigned count);
__global__ void slot_pairs_shifted(unsigned *out, const unsigned *in, unsigned count);
__global__ void slot_pairs_thirds(unsigned *out, const unsigned *in, unsigned count);

// The odd part of v, counting the factors of two into *twos (0 for 0).
static unsigned odd_rest(unsigned *twos, unsigned v)
{
    if (v == 0) {
        *twos = 0;
        return 0;
    }
    for (*twos = 0; (v & 1) == 0; v >>= 1) {
        ++*twos;
    }
    return v;
}

// The odd part of v (no answer for 0: the loop does not end).
static unsigned odd_factor(unsigned v)
{
    while (v % 2 == 0) {
        v = v / 2;
    }
    return v;
}

// Not the odd part: two bits at a time (6 gives 1).
static unsigned odd_by_four(unsigned v)
{
    if (!v) {
        return 0;
    }
    while ((v & 1) == 0) {
        v >>= 2;
    }
    return v;
}

void sort_tiles(unsigned *keys, unsigned tiles, unsigned len)
{
    unsigned twos;
    if (odd_rest(&twos, len) != 1 || len > TILE) {
        fprintf(stderr, "the length must be a power of two up to %d\n", TILE);
        exit(EXIT_FAILURE);
    }
    exchange_checked<<<tiles, TILE / 2>>>(keys, len);
}

void sort_tiles_asserted(unsigned *keys, unsigned tiles, unsigned len)
{
    unsigned rest = odd_factor(len);
    assert(rest == 1);
    assert(len <= TILE);
    exchange_asserted<<<tiles, TILE / 2>>>(keys, len);
}

void sort_tiles_by_four(unsigned *keys, unsigned tiles, unsigned len)
{
    if (odd_by_four(len) != 1 || len > TILE) {
        return;
    }
    exchange_by_four<<<tiles, TILE / 2>>>(keys, len);
}

void pair_up(unsigned *out, const unsigned *in, unsigned n)
{
    unsigned twos;
    if (odd_rest(&twos, n) != 1) {
        return;
    }
    if (n < 1024 || n > 131072) {
        return;
    }
    slot_pairs<<<1, 256>>>(out, in, n / 512);
    slot_pairs_shifted<<<1, 256>>>(out, in, n >> 9);
    slot_pairs_thirds<<<1, 256>>>(out, in, n / 3);
}
