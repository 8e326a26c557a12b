// Issue 26, unsigned arithmetic in conditions: an `unsigned int` holds its
// value modulo 2^32, so `base + t < t` is the carry test, true for the
// threads whose sum wraps (base = 2^32 - 1: every thread but 0). In
// mathematical integers it is never true and the write under it looks dead.
//  * carry_guard: every carrying thread writes its own t to out[0]: racy.
//  * carry_guard_own_cell: each thread writes its own cell: verified.
//  * shifted_out: `(t << 27) == 0` holds for t = 0 and t = 32 (the bits
//    shift out of the word): the two threads write out[0]: racy.
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: carry_guard racy
// expect-kernel: carry_guard_own_cell verified
// expect-kernel: shifted_out racy

__global__ void carry_guard(unsigned *out, unsigned base) {
    unsigned t = threadIdx.x;
    if (base + t < t)
        out[0] = t; //~ data-race
}

__global__ void carry_guard_own_cell(unsigned *out, unsigned base) {
    unsigned t = threadIdx.x;
    if (base + t < t)
        out[t] = t;
}

__global__ void shifted_out(unsigned *out) {
    unsigned t = threadIdx.x;
    if ((t << 27) == 0)
        out[0] = t; //~ data-race
}
