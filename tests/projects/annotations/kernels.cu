// Annotations that a real build compiles: `syncscope.h` (the repository's
// include/, found through -I as a build would find it) defines them away
// unless `__SYNCSCOPE__` is defined, which Syncscope defines in the pass it
// reads. tests/annotations_compile.rs compiles this file with the host
// compiler to show the build accepts it.
// syncscope-args: -I ../../../include
// expect-kernel: folded_copy verified
// expect-kernel: folded_copy_too_wide racy
// expect-kernel: folded_copy_guarded verified
// expect-kernel: rotate_pairs verified
#include "syncscope.h"

// Each thread owns cell t % 64 of the buffer: its own while the block has
// at most 64 threads, which the precondition states.
__global__ void folded_copy(const float *in, float *out)
{
    __requires(blockDim.x <= 64);
    __shared__ float buf[64];
    unsigned t = threadIdx.x;
    buf[t % 64] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = buf[(t + 1) % 64];
}

// The same kernel allowed 128 threads: threads t and t + 64 share a cell.
__global__ void folded_copy_too_wide(const float *in, float *out)
{
    __requires(blockDim.x <= 128);
    __shared__ float buf[64];
    unsigned t = threadIdx.x;
    buf[t % 64] = in[blockIdx.x * blockDim.x + t]; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = buf[(t + 1) % 64];
}

// The guard a file without the header uses (what a quick-fix inserts there).
__global__ void folded_copy_guarded(const float *in, float *out)
{
#ifdef __SYNCSCOPE__
    __requires(blockDim.x <= 64);
#endif
    __shared__ float buf[64];
    unsigned t = threadIdx.x;
    buf[t % 64] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = buf[(t + 1) % 64];
}

// A loop-head invariant (checked) and a precondition with two conditions:
// both compile to nothing in a real build.
__global__ void rotate_pairs(int *data, int rounds)
{
    __requires(blockDim.x == 32 && blockDim.y == 1);
    __shared__ int s[32];
    unsigned t = threadIdx.x;
    s[t] = data[blockIdx.x * 32 + t];
    __syncthreads();
    for (int r = 0; __invariant(r >= 0), r < rounds; ++r) {
        int v = s[(t + 1) % 32];
        __syncthreads();
        s[t] = v;
        __syncthreads();
    }
    data[blockIdx.x * 32 + t] = s[t];
}
