// Kernels race-free only for a power-of-two length, which their host code
// (host.cu) checks through helpers with loops: a helper that halves a
// value while it is even and returns what is left (its odd part, 0 for 0)
// returns 1 exactly for a power of two, so `if (odd_rest(n) != 1) exit(..)`
// and `assert(r == 1)` with `r = odd_rest(..)` are launch facts. A length
// passed as `n / 512` or `n >> 9` of a checked `n` is bound to it.
// expect-kernel: exchange_checked verified
// expect-kernel: exchange_asserted verified
// expect-kernel: exchange_by_four racy
// expect-kernel: slot_pairs verified
// expect-kernel: slot_pairs_shifted verified
// expect-kernel: slot_pairs_thirds racy

#define TILE 1024

// A compare-exchange network over one tile of TILE keys, strides halved
// from len / 2: thread t's pair (pos, pos + stride) is its own when the
// stride is a power of two (len a power of two up to TILE).
__global__ void exchange_checked(unsigned *keys, unsigned len)
{
    __shared__ unsigned tile[TILE];
    unsigned t = threadIdx.x;
    unsigned *base = keys + blockIdx.x * TILE;
    tile[t] = base[t];
    tile[t + TILE / 2] = base[t + TILE / 2];
    for (unsigned stride = len / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        unsigned pos = 2 * t - (t & (stride - 1));
        unsigned lo = tile[pos];
        unsigned hi = tile[pos + stride];
        if (lo > hi) {
            tile[pos] = hi;
            tile[pos + stride] = lo;
        }
    }
    __syncthreads();
    base[t] = tile[t];
    base[t + TILE / 2] = tile[t + TILE / 2];
}

// The same network; its host asserts on the helper's result kept in a
// local.
__global__ void exchange_asserted(unsigned *keys, unsigned len)
{
    __shared__ unsigned tile[TILE];
    unsigned t = threadIdx.x;
    unsigned *base = keys + blockIdx.x * TILE;
    tile[t] = base[t];
    tile[t + TILE / 2] = base[t + TILE / 2];
    for (unsigned stride = len / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        unsigned pos = 2 * t - (t & (stride - 1));
        unsigned lo = tile[pos];
        unsigned hi = tile[pos + stride];
        if (lo > hi) {
            tile[pos] = hi;
            tile[pos + stride] = lo;
        }
    }
    __syncthreads();
    base[t] = tile[t];
    base[t + TILE / 2] = tile[t + TILE / 2];
}

// The same network, checked by a helper that shifts by two while the
// value is even: it returns 1 for 6 too, and len = 6 gives stride 3, where
// threads 1 and 2 both take cell 2.
__global__ void exchange_by_four(unsigned *keys, unsigned len)
{
    __shared__ unsigned tile[TILE];
    unsigned t = threadIdx.x;
    unsigned *base = keys + blockIdx.x * TILE;
    tile[t] = base[t];
    tile[t + TILE / 2] = base[t + TILE / 2];
    for (unsigned stride = len / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        unsigned pos = 2 * t - (t & (stride - 1));
        unsigned lo = tile[pos]; //~ data-race
        unsigned hi = tile[pos + stride];
        if (lo > hi) {
            tile[pos] = hi; //~ data-race
            tile[pos + stride] = lo; //~ data-race
        }
    }
    __syncthreads();
    base[t] = tile[t];
    base[t + TILE / 2] = tile[t + TILE / 2];
}

// Each thread fills the two slots of its pair (pos, pos + count) in runs
// of 2 * count: its own when count is a power of two up to 256.
__global__ void slot_pairs(unsigned *out, const unsigned *in, unsigned count)
{
    __shared__ unsigned slots[512];
    unsigned t = threadIdx.x;
    unsigned pos = 2 * t - (t & (count - 1));
    slots[pos] = 0;
    slots[pos + count] = in[t];
    __syncthreads();
    out[t] = slots[t] + slots[t + 256];
}

// The same, passed `n >> 9`.
__global__ void slot_pairs_shifted(unsigned *out, const unsigned *in, unsigned count)
{
    __shared__ unsigned slots[512];
    unsigned t = threadIdx.x;
    unsigned pos = 2 * t - (t & (count - 1));
    slots[pos] = 0;
    slots[pos + count] = in[t];
    __syncthreads();
    out[t] = slots[t] + slots[t + 256];
}

// The same, passed a third of a power of two (341 for n = 1024): not a
// power of two.
__global__ void slot_pairs_thirds(unsigned *out, const unsigned *in, unsigned count)
{
    __shared__ unsigned slots[1024];
    unsigned t = threadIdx.x;
    unsigned pos = 2 * t - (t & (count - 1));
    slots[pos] = 0; //~ benign-race
    slots[pos + count] = in[t]; //~ data-race
    __syncthreads();
    out[t] = slots[t] + slots[t + 256];
}
