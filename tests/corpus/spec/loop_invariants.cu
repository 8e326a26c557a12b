// Loop invariants in GPUVerify's position -- the head of the loop, before
// the guard, separated by the comma operator.  Value invariants are checked
// at every iteration's head; access invariants (`__write_implies`,
// `__no_read`...) help GPUVerify's loop abstraction, which Syncscope does
// not need: they are neither assumed nor checked, and the report says so.
//  * tree_sum:        the SDK-style tree reduction, annotated: verified.
//  * tree_sum_bad_inv: claims the stride stays above 1, false at the last
//                      iteration (s == 1): assertion-failed.
//  * tree_sum_racy:   reads the partner before the barrier of the same
//                      iteration is passed by the writer (no barrier between
//                      the read and the write of the next level): racy.
//--blockDim=256 --gridDim=32
// syncscope-args: --block-dim 256 --grid-dim 32
// expect-kernel: tree_sum verified
// expect-kernel: tree_sum_bad_inv assertion-failed
// expect-kernel: tree_sum_racy racy

#define BLOCK 256

__global__ void tree_sum(const float *in, float *out)
{
    __shared__ float partial[BLOCK];
    unsigned tid = threadIdx.x;
    partial[tid] = in[blockIdx.x * BLOCK + tid];
    __syncthreads();
    for (unsigned s = BLOCK / 2;
         __invariant(__is_pow2(s) || s == 0),
         __invariant(s <= BLOCK / 2),
         __invariant(__uniform_int(s)),
         __invariant(__no_read(in)),
         __invariant(__write_implies(partial, __write_offset_bytes(partial) / sizeof(float) == tid)),
         s > 0;
         s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

__global__ void tree_sum_bad_inv(const float *in, float *out)
{
    __shared__ float partial[BLOCK];
    unsigned tid = threadIdx.x;
    partial[tid] = in[blockIdx.x * BLOCK + tid];
    __syncthreads();
    for (unsigned s = BLOCK / 2;
         __invariant(s > 1), //~ assertion
         s > 0;
         s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

__global__ void tree_sum_racy(const float *in, float *out)
{
    __shared__ float partial[BLOCK];
    unsigned tid = threadIdx.x;
    partial[tid] = in[blockIdx.x * BLOCK + tid];
    __syncthreads();
    for (unsigned s = BLOCK / 2;
         __invariant(__uniform_int(s)),
         s > 0;
         s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s]; //~ data-race
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}
