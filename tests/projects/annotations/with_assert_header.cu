// A kernel file that includes `syncscope.h` and then the C library's
// <cassert> (in that order, as real files do): the header declares glibc's
// `__assert` function before defining the `__assert` annotation away, so
// the later include still compiles. Checked by the host compiler in
// tests/projects.rs (annotated_fixtures_compile_with_a_real_compiler).
// syncscope-args: -I ../../../include
// expect-kernel: checked_scale verified
#include "syncscope.h"
#include <cassert>

__global__ void checked_scale(float *x, int n)
{
    __requires(blockDim.x <= 256);
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    __assert(threadIdx.x < 256);
    assert(n >= 0);
    if (i < (unsigned)n)
        x[i] *= 2.0f;
}
