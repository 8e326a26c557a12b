// Item 6 of issue 19: the shared-memory tree reduction as real code writes
// it -- a `for` with `s >>= 1`, a `while` with `s /= 2`, a `do ... while`
// that halves first, a `for` with several induction variables -- all
// verified: the halving stride ranges over blockDim.x/2, /4, ..., 1 (powers
// of two times the start value), so `t < s` readers never meet the writers
// of the same step. The racy twins: the `while` form without the barrier
// (step s writes sdata[t] while step s/2 reads it) and the `for` form with
// `t <= s` (thread s writes sdata[s] while thread 0 reads sdata[0 + s]).
// syncscope-args: --block-dim 256 --grid-dim 120
// expect-kernel: block_sum_for verified
// expect-kernel: block_sum_while verified
// expect-kernel: block_sum_do verified
// expect-kernel: block_sum_levels verified
// expect-kernel: block_sum_while_no_barrier racy
// expect-kernel: block_sum_off_by_one racy

#define THREADS 256
#define SYNC() __syncthreads()

template <typename T>
__device__ __forceinline__ T sum_op(T a, T b)
{
    return a + b;
}

template <typename T>
__device__ void load_block(T *sdata, const T *in, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[threadIdx.x] = i < n ? in[i] : T(0);
    SYNC();
}

template <typename T>
__global__ void block_sum_for(T *out, const T *in, unsigned n)
{
    __shared__ T sdata[THREADS];
    const unsigned t = threadIdx.x;
    load_block(sdata, in, n);
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            sdata[t] += sdata[t + s];
        SYNC();
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}

template <typename T>
__global__ void block_sum_while(T *out, const T *in, unsigned n)
{
    __shared__ T sdata[THREADS];
    const unsigned t = threadIdx.x;
    load_block(sdata, in, n);
    unsigned s = blockDim.x / 2;
    while (s > 0) {
        if (t < s)
            sdata[t] = sdata[t] + sdata[t + s];
        SYNC();
        s /= 2;
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}

template <typename T>
__global__ void block_sum_do(T *out, const T *in, unsigned n)
{
    __shared__ T sdata[THREADS];
    const unsigned t = threadIdx.x;
    load_block(sdata, in, n);
    unsigned s = blockDim.x;
    do {
        s >>= 1;
        if (t < s)
            sdata[t] += sdata[t + s];
        SYNC();
    } while (s > 1);
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}

// Two strides and a level count advance together.
__global__ void block_sum_levels(float *out, const float *in, unsigned n)
{
    __shared__ float sdata[THREADS];
    const unsigned t = threadIdx.x;
    load_block(sdata, in, n);
    int level = 0;
    for (unsigned s = THREADS / 2, width = THREADS; s > 0; s >>= 1, width >>= 1, ++level) {
        if (t < s && t + s < width)
            sdata[t] = sum_op(sdata[t], sdata[t + s]);
        SYNC();
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0] / (float)(level + 1);
}

__global__ void block_sum_while_no_barrier(float *out, const float *in, unsigned n)
{
    __shared__ float sdata[THREADS];
    const unsigned t = threadIdx.x;
    load_block(sdata, in, n);
    unsigned s = blockDim.x / 2;
    while (s > 0) {
        if (t < s)
            sdata[t] += sdata[t + s]; //~ data-race
        s /= 2;
    }
    SYNC();
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}

__global__ void block_sum_off_by_one(float *out, const float *in, unsigned n)
{
    __shared__ float sdata[THREADS];
    const unsigned t = threadIdx.x;
    load_block(sdata, in, n);
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t <= s)
            sdata[t] += sdata[t + s]; //~ data-race
        SYNC();
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}

void reduce_all(float *partial, const float *in, unsigned n)
{
    unsigned blocks = (n + THREADS - 1) / THREADS;
    block_sum_for<float><<<blocks, THREADS>>>(partial, in, n);
    block_sum_while<float><<<blocks, THREADS>>>(partial, in, n);
    block_sum_do<float><<<blocks, THREADS>>>(partial, in, n);
}
