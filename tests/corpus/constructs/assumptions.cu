// Assumptions that rule out the colliding launch or parameter values.
// Each thread writes s[tid] and s[tid + off].  These two writes of different
// threads collide when 0 < off < blockDim.x (thread 0 writes s[off], so does
// thread off) -- unless an assumption forbids it.
// `off` is an `int` and `blockDim.x` an `unsigned int`: C compares them in
// unsigned arithmetic, so `off = -1` (the huge 2^32 - 1) passes
// `off >= blockDim.x` and `s[tid + off]` is `s[tid - 1]`, the cell of the
// thread before.  Each assumption below therefore rules out the collision
// only together with `off >= 0` (the `_nonnegative` kernels).
//  * no_assumption:    off is arbitrary: racy.
//  * with_requires:    __requires(off >= blockDim.x): racy (off = -1).
//  * with_assert:      assert(off >= blockDim.x) at the top: racy (off = -1).
//  * with_assume:      __assume(off == 0 || off >= blockDim.x): racy (off = -1).
//  * with_builtin:     __builtin_assume(off >= 256): verified (a signed
//                      comparison: off = -1 fails it).
//  * with_guard:       `if (off < blockDim.x) return;` (uniform): racy
//                      (off = -1 does not return).
//  * with_requires_nonnegative, with_assert_nonnegative,
//    with_assume_nonnegative, with_guard_nonnegative: the same with
//    `off >= 0` too: verified.
// See requires_blockdim.cu for __requires on the launch sizes.
// syncscope-args: --block-dim 256 --grid-dim 8
// expect-kernel: no_assumption racy
// expect-kernel: with_requires racy
// expect-kernel: with_assert racy
// expect-kernel: with_assume racy
// expect-kernel: with_builtin verified
// expect-kernel: with_guard racy
// expect-kernel: with_requires_nonnegative verified
// expect-kernel: with_assert_nonnegative verified
// expect-kernel: with_assume_nonnegative verified
// expect-kernel: with_guard_nonnegative verified

#include <cassert>

__global__ void no_assumption(int *out, int off)
{
    __shared__ int s[2048];
    int tid = threadIdx.x;
    s[tid] = 1; //~ data-race
    s[tid + off] = 2; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[255 - tid];
}

__global__ void with_requires(int *out, int off)
{
    __requires(off >= blockDim.x);
    __shared__ int s[2048];
    int tid = threadIdx.x;
    s[tid] = 1; //~ data-race
    s[tid + off] = 2; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[255 - tid];
}

__global__ void with_assert(int *out, int off)
{
    assert(off >= blockDim.x);
    __shared__ int s[2048];
    int tid = threadIdx.x;
    s[tid] = 1; //~ data-race
    s[tid + off] = 2; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[255 - tid];
}

__global__ void with_assume(int *out, int off)
{
    __assume(off == 0 || off >= blockDim.x);
    __shared__ int s[2048];
    int tid = threadIdx.x;
    s[tid] = 1; //~ data-race
    s[tid + off] = 2; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[255 - tid];
}

__global__ void with_builtin(int *out, int off)
{
    __builtin_assume(off >= 256);
    __shared__ int s[2048];
    int tid = threadIdx.x;
    s[tid] = 1;
    s[tid + off] = 2;
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[255 - tid];
}

__global__ void with_guard(int *out, int off)
{
    if (off < blockDim.x)
        return;
    __shared__ int s[2048];
    int tid = threadIdx.x;
    s[tid] = 1; //~ data-race
    s[tid + off] = 2; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[255 - tid];
}

__global__ void with_requires_nonnegative(int *out, int off)
{
    __requires(off >= 0);
    __requires(off >= blockDim.x);
    __shared__ int s[2048];
    int tid = threadIdx.x;
    s[tid] = 1;
    s[tid + off] = 2;
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[255 - tid];
}

__global__ void with_assert_nonnegative(int *out, int off)
{
    assert(off >= 0 && off >= blockDim.x);
    __shared__ int s[2048];
    int tid = threadIdx.x;
    s[tid] = 1;
    s[tid + off] = 2;
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[255 - tid];
}

__global__ void with_assume_nonnegative(int *out, int off)
{
    __assume(off == 0 || (off > 0 && off >= blockDim.x));
    __shared__ int s[2048];
    int tid = threadIdx.x;
    s[tid] = 1;
    s[tid + off] = 2;
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[255 - tid];
}

__global__ void with_guard_nonnegative(int *out, int off)
{
    if (off < 0 || off < blockDim.x)
        return;
    __shared__ int s[2048];
    int tid = threadIdx.x;
    s[tid] = 1;
    s[tid + off] = 2;
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[255 - tid];
}
