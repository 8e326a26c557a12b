// A count the host computes as an `unsigned` quotient (`(n + 63u) / 256`)
// is at most UINT_MAX / 256 whatever `n` is (issue #27, host facts): a
// thread below it scales its group's start by 256 without wrapping.
// `spread_groups` writes one cell per thread at its group's start (a
// bitwise expression, decided in 32-bit arithmetic where a larger `pos`
// would wrap onto another thread's cell) plus its lane: race-free under
// that bound (`unknown` without it). `spread_half` halves the group
// start, so two groups' cells overlap (racy for any count).
// expect-kernel: spread_groups verified
// expect-kernel: spread_half racy

#include <cuda_runtime.h>

__global__ void spread_groups(unsigned *out, unsigned count)
{
    unsigned pos = blockIdx.x * blockDim.x + threadIdx.x;
    if (pos >= count) {
        return;
    }
    unsigned start = (pos & ~63u) * 256;
    out[start / 256 + (pos & 63u)] = pos;
}

__global__ void spread_half(unsigned *out, unsigned count)
{
    unsigned pos = blockIdx.x * blockDim.x + threadIdx.x;
    if (pos >= count) {
        return;
    }
    unsigned start = (pos & ~63u) * 256;
    out[start / 512 + (pos & 63u)] = pos; //~ data-race
}

static void launch_groups(unsigned *out, unsigned n)
{
    unsigned count = (n + 63u) / 256;
    spread_groups<<<(count + 255) / 256, 256>>>(out, count);
    spread_half<<<(count + 255) / 256, 256>>>(out, count);
}

void run_groups(unsigned *out, unsigned n)
{
    launch_groups(out, n);
}
