// Kernels whose strides are powers of two only because of the host loops
// that launch them (host.cu): an unsigned induction variable started at a
// power of two (a constant, or another such variable halved) and moved
// only by `<<= 1` / `>>= 1` is a power of two or zero at every launch, and
// the loop's condition holds there (`stride > 0`). Both are launch facts.
// expect-kernel: compare_step verified
// expect-kernel: merge_step verified
// expect-kernel: third_step racy

// Thread g compares the pair (pos, pos + stride); the pairs of two threads
// are disjoint when stride is a power of two.
__global__ void compare_step(unsigned* keys, unsigned stride) {
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned pos = 2 * g - (g & (stride - 1));
    unsigned a = keys[pos];
    unsigned b = keys[pos + stride];
    if (a > b) {
        keys[pos] = b;
        keys[pos + stride] = a;
    }
}

// Odd-even merge step: runs of `size / 2` cells, a thread at offset at
// least `stride` in its run pairs (pos - stride, pos).
__global__ void merge_step(unsigned* keys, unsigned size, unsigned stride) {
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned pos = 2 * g - (g & (stride - 1));
    if (stride < size / 2) {
        unsigned offset = g & (size / 2 - 1);
        if (offset >= stride) {
            unsigned a = keys[pos - stride];
            unsigned b = keys[pos];
            keys[pos - stride] = a < b ? a : b;
            keys[pos] = a < b ? b : a;
        }
    } else {
        unsigned a = keys[pos];
        unsigned b = keys[pos + stride];
        keys[pos] = a < b ? a : b;
        keys[pos + stride] = a < b ? b : a;
    }
}

// The same step as compare_step, launched from a loop that starts at a third
// of the length: the stride is not a power of two (3 for n = 9), and
// threads 1 and 2 both own cell 2.
__global__ void third_step(unsigned* keys, unsigned stride) {
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned pos = 2 * g - (g & (stride - 1));
    unsigned a = keys[pos]; //~ data-race
    unsigned b = keys[pos + stride]; //~ data-race
    if (a > b) {
        keys[pos] = b; //~ data-race
        keys[pos + stride] = a; //~ data-race
    }
}
