// The pair cells of a compare-exchange network with a power-of-two stride
// `s` (a fact of the kernel, here a `__requires`): thread g's lower cell
// `2 * g - (g & (s - 1))` is `(g / s) * 2s + g % s`, so its remainder by
// `2 * s` is below `s`; it is injective in g, and `+ s` / `- s` (an odd
// multiple of `s` away) never reaches another thread's cell. The exact rules
// decide this without Z3; before, the solver decided the mask in 32-bit
// vectors, where `2 * g` wraps around, and the race-free kernels were
// `unknown` (their witnesses did not replay, or the budget ran out).
// syncscope-args: --block-dim 256
// expect-kernel: exchange_pairs verified
// expect-kernel: exchange_pairs_any_stride racy
// expect-kernel: exchange_pairs_shifted racy
// expect-kernel: merge_pairs verified
// expect-kernel: merge_pairs_any_stride racy

// Thread g owns the pair (pos, pos + stride): g's low bits below stride stay,
// the bits above are doubled, so two threads never share a cell.
__global__ void exchange_pairs(unsigned* keys, unsigned stride) {
    __requires(stride > 0 && (stride & (stride - 1)) == 0);
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned pos = 2 * g - (g & (stride - 1));
    unsigned a = keys[pos];
    unsigned b = keys[pos + stride];
    if (a > b) {
        keys[pos] = b;
        keys[pos + stride] = a;
    }
}

// Racy twin: for a stride that is not a power of two (3) the mask is not
// a remainder and threads 1 and 2 both own cell 2.
__global__ void exchange_pairs_any_stride(unsigned* keys, unsigned stride) {
    __requires(stride > 0);
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned pos = 2 * g - (g & (stride - 1));
    unsigned a = keys[pos]; //~ data-race
    unsigned b = keys[pos + stride]; //~ data-race
    if (a > b) {
        keys[pos] = b; //~ data-race
        keys[pos + stride] = a; //~ data-race
    }
}

// Racy twin: a power-of-two stride, but the partner is one cell short, which
// is the next thread's own cell. (The bounds keep the solver's 32-bit
// search of the pairs the exact rules leave to it free of wrap-around.)
__global__ void exchange_pairs_shifted(unsigned* keys, unsigned stride) {
    __requires(stride > 1 && (stride & (stride - 1)) == 0);
    __requires(stride <= 1024 && gridDim.x <= 1024);
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned pos = 2 * g - (g & (stride - 1));
    unsigned a = keys[pos]; //~ data-race
    unsigned b = keys[pos + stride - 1]; //~ data-race
    keys[pos] = b; //~ data-race
    keys[pos + stride - 1] = a; //~ data-race
}

// One step of an odd-even merge over runs of `half` cells: a thread whose
// offset in its run is at least `stride` pairs (pos - stride, pos).
__global__ void merge_pairs(unsigned* keys, unsigned half, unsigned stride) {
    __requires(stride > 0 && (stride & (stride - 1)) == 0);
    __requires((half & (half - 1)) == 0 && stride < half);
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned pos = 2 * g - (g & (stride - 1));
    unsigned offset = g & (half - 1);
    if (offset >= stride) {
        unsigned a = keys[pos - stride];
        unsigned b = keys[pos];
        keys[pos - stride] = a < b ? a : b;
        keys[pos] = a < b ? b : a;
    }
}

// Racy twin: the run length is a power of two, the stride need not be.
__global__ void merge_pairs_any_stride(unsigned* keys, unsigned half, unsigned stride) {
    __requires(stride > 0);
    __requires((half & (half - 1)) == 0 && stride < half);
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned pos = 2 * g - (g & (stride - 1));
    unsigned offset = g & (half - 1);
    if (offset >= stride) {
        unsigned a = keys[pos - stride]; //~ data-race
        unsigned b = keys[pos]; //~ data-race
        keys[pos - stride] = a < b ? a : b; //~ data-race
        keys[pos] = a < b ? b : a; //~ data-race
    }
}
