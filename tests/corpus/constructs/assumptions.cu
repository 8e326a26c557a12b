// Assumptions that rule out the colliding launch or parameter values.
// Each thread writes s[tid] and s[tid + off].  These two writes of different
// threads collide when 0 < off < blockDim.x (thread 0 writes s[off], so does
// thread off) -- unless an assumption forbids it.
//  * no_assumption:    off is arbitrary: racy.
//  * with_requires:    __requires(off >= blockDim.x): verified.
//  * with_assert:      assert(off >= blockDim.x) at the top: verified.
//  * with_assume:      __assume(off == 0 || off >= blockDim.x): verified.
//  * with_builtin:     __builtin_assume(off >= 256): verified.
//  * with_guard:       `if (off < blockDim.x) return;` (uniform): verified.
// See requires_blockdim.cu for __requires on the launch sizes.
// syncscope-args: --block-dim 256 --grid-dim 8
// expect-kernel: no_assumption racy
// expect-kernel: with_requires verified
// expect-kernel: with_assert verified
// expect-kernel: with_assume verified
// expect-kernel: with_builtin verified
// expect-kernel: with_guard verified

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
    s[tid] = 1;
    s[tid + off] = 2;
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[255 - tid];
}

__global__ void with_assert(int *out, int off)
{
    assert(off >= blockDim.x);
    __shared__ int s[2048];
    int tid = threadIdx.x;
    s[tid] = 1;
    s[tid + off] = 2;
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[255 - tid];
}

__global__ void with_assume(int *out, int off)
{
    __assume(off == 0 || off >= blockDim.x);
    __shared__ int s[2048];
    int tid = threadIdx.x;
    s[tid] = 1;
    s[tid + off] = 2;
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
    s[tid] = 1;
    s[tid + off] = 2;
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[255 - tid];
}
