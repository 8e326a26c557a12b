// The steps of a sorting network in shared memory: a size doubling up to
// the tile, a stride halving from half the size with a barrier at its top,
// and each thread's pair of cells `2 * t - (t & (stride - 1))` and
// `+ stride`. Both threads of one step share its iteration, so the stride
// is one value for the block, a power of two by its form (`(2 * 2^i) / 2
// >> j`) and positive by the loop's test: the exact rules decide each
// step's pairs without the solver, where the 32-bit queries of each step
// (a bitwise direction bit sends them to bit-vectors) took hundreds of
// thousands of resource units each. The racy twins step the stride down by
// one, mask with the stride itself, or start the stride off a power of two.
// syncscope-args: --block-dim 128
// expect-kernel: steps_fixed_tile verified
// expect-kernel: steps_run_time_length verified
// expect-kernel: steps_stride_minus_one racy
// expect-kernel: steps_mask_off_by_one racy
// expect-kernel: steps_start_off_power racy

#define TILE 256

__device__ void exchange(unsigned* s, unsigned lo, unsigned hi, unsigned up) {
    unsigned a = s[lo];
    unsigned b = s[hi];
    if ((a > b) == up) {
        s[lo] = b;
        s[hi] = a;
    }
}

// A tile of 256 keys, two per thread, the direction bit from the size.
__global__ void steps_fixed_tile(unsigned* keys) {
    __shared__ unsigned s[TILE];
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * TILE;
    s[t] = keys[base + t];
    s[t + TILE / 2] = keys[base + t + TILE / 2];
    for (unsigned size = 2; size < TILE; size <<= 1) {
        unsigned up = (t & (size / 2)) != 0;
        for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            unsigned pos = 2 * t - (t & (stride - 1));
            exchange(s, pos, pos + stride, up);
        }
    }
    __syncthreads();
    keys[base + t] = s[t];
    keys[base + t + TILE / 2] = s[t + TILE / 2];
}

// The length a run-time power of two (at most the tile), the direction a
// parameter flipped by the size's bit, the last merge over the whole
// length.
__global__ void steps_run_time_length(unsigned* keys, unsigned length, unsigned dir) {
    __requires(length >= 2 && length <= TILE && (length & (length - 1)) == 0);
    __shared__ unsigned s[TILE];
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * TILE;
    s[t] = keys[base + t];
    s[t + TILE / 2] = keys[base + t + TILE / 2];
    for (unsigned size = 2; size < length; size <<= 1) {
        unsigned up = dir ^ ((t & (size / 2)) != 0);
        for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            unsigned pos = 2 * t - (t & (stride - 1));
            exchange(s, pos, pos + stride, up);
        }
    }
    for (unsigned stride = length / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        unsigned pos = 2 * t - (t & (stride - 1));
        exchange(s, pos, pos + stride, dir);
    }
    __syncthreads();
    keys[base + t] = s[t];
    keys[base + t + TILE / 2] = s[t + TILE / 2];
}

// Racy twin: the stride steps down by one, through 3 at size 8, where
// threads 1 and 2 both own cell 4 (`2 - (1 & 2) + 3` and `4 - (2 & 2)`).
__global__ void steps_stride_minus_one(unsigned* keys) {
    __shared__ unsigned s[2 * TILE];
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * TILE;
    s[t] = keys[base + t];
    s[t + TILE / 2] = keys[base + t + TILE / 2];
    for (unsigned size = 2; size < TILE; size <<= 1) {
        unsigned up = (t & (size / 2)) != 0;
        for (unsigned stride = size / 2; stride > 0; stride -= 1) {
            __syncthreads();
            unsigned pos = 2 * t - (t & (stride - 1));
            unsigned a = s[pos]; //~ data-race
            unsigned b = s[pos + stride];
            if ((a > b) == up) {
                s[pos] = b; //~ data-race
                s[pos + stride] = a; //~ data-race
            }
        }
    }
    __syncthreads();
    keys[base + t] = s[t];
    keys[base + t + TILE / 2] = s[t + TILE / 2];
}

// Racy twin: the mask is the stride, not the bits below it: at stride 1
// threads 0 and 1 both own cell 1.
__global__ void steps_mask_off_by_one(unsigned* keys) {
    __shared__ unsigned s[2 * TILE];
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * TILE;
    s[t] = keys[base + t];
    s[t + TILE / 2] = keys[base + t + TILE / 2];
    for (unsigned size = 2; size < TILE; size <<= 1) {
        unsigned up = (t & (size / 2)) != 0;
        for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            unsigned pos = 2 * t - (t & stride);
            unsigned a = s[pos]; //~ data-race
            unsigned b = s[pos + stride];
            if ((a > b) == up) {
                s[pos] = b; //~ data-race
                s[pos + stride] = a; //~ data-race
            }
        }
    }
    __syncthreads();
    keys[base + t] = s[t];
    keys[base + t + TILE / 2] = s[t + TILE / 2];
}

// Racy twin: the stride starts one above half the size (2 at size 2), not
// a power of two at size 4 (3).
__global__ void steps_start_off_power(unsigned* keys) {
    __shared__ unsigned s[2 * TILE];
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * TILE;
    s[t] = keys[base + t];
    s[t + TILE / 2] = keys[base + t + TILE / 2];
    for (unsigned size = 2; size < TILE; size <<= 1) {
        unsigned up = (t & (size / 2)) != 0;
        for (unsigned stride = size / 2 + 1; stride > 0; stride >>= 1) {
            __syncthreads();
            unsigned pos = 2 * t - (t & (stride - 1));
            unsigned a = s[pos]; //~ data-race
            unsigned b = s[pos + stride];
            if ((a > b) == up) {
                s[pos] = b; //~ data-race
                s[pos + stride] = a; //~ data-race
            }
        }
    }
    __syncthreads();
    keys[base + t] = s[t];
    keys[base + t + TILE / 2] = s[t + TILE / 2];
}
