// Item 3 of issue 19, the last-block pattern (threadFenceReduction): each
// block writes its partial sum, `__threadfence()`, thread 0 takes a ticket
// with atomicInc and broadcasts through a `__shared__` flag whether it is
// the last block; the last block sums the partials. The model: one thread
// per block increments, so the tickets of two blocks differ (one block at
// most passes `ticket == gridDim.x - 1`), and the block with that ticket
// runs after every other block's increment, so the partials written before
// it (and its fence) are ordered before the final pass: verified, with a
// note that the counter is taken to be 0 at launch.
// Racy twins: no `__threadfence()` (nothing orders the partials:
// `sum_without_fence`), a test more than one block passes
// (`sum_upper_half_finishes`: `ticket >= gridDim.x / 2`), a value written
// after the increment (`sum_late_count`: another block's `counts` is not
// ordered), a race between the last block's own threads
// (`sum_last_pass_unsynced`: its final reduction misses a barrier), a
// counter that wraps before every block took a ticket
// (`sum_wrapping_counter`: atomicInc(&c, 4) with 16 blocks hands ticket 3
// to several blocks), and the block's own reduction missing a barrier
// (`sum_with_last_block_racy`), and a flag another thread overwrites
// (`sum_flag_forced`: the flag no longer says which block is last).
// syncscope-args: --block-dim 256 --grid-dim 16
// expect-kernel: sum_with_last_block verified
// expect-kernel: sum_with_last_block_racy racy
// expect-kernel: sum_without_fence racy
// expect-kernel: sum_upper_half_finishes racy
// expect-kernel: sum_late_count racy
// expect-kernel: sum_last_pass_unsynced racy
// expect-kernel: sum_wrapping_counter racy
// expect-kernel: sum_flag_forced racy

#define BLOCK 256

__device__ unsigned int g_blocks_done = 0;

__device__ float block_sum(float *sdata, unsigned t)
{
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            sdata[t] += sdata[t + s];
        __syncthreads();
    }
    return sdata[0];
}

__global__ void sum_with_last_block(float *partial, float *total, const float *in)
{
    __shared__ float sdata[BLOCK];
    __shared__ bool s_is_last;
    const unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    float sum = block_sum(sdata, t);
    if (t == 0) {
        partial[blockIdx.x] = sum;
        __threadfence();
        unsigned ticket = atomicInc(&g_blocks_done, gridDim.x);
        s_is_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (s_is_last) {
        float acc = 0.0f;
        for (unsigned i = t; i < gridDim.x; i += BLOCK)
            acc += partial[i];
        sdata[t] = acc;
        __syncthreads();
        float grand = block_sum(sdata, t);
        if (t == 0) {
            total[0] = grand;
            g_blocks_done = 0;
        }
    }
}

__global__ void sum_with_last_block_racy(float *partial, float *total, const float *in)
{
    __shared__ float sdata[BLOCK];
    __shared__ bool s_is_last;
    const unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * BLOCK + t]; //~ data-race
    if (t < BLOCK / 2)
        sdata[t] += sdata[t + BLOCK / 2]; //~ data-race
    __syncthreads();
    if (t == 0) {
        partial[blockIdx.x] = sdata[0];
        __threadfence();
        unsigned ticket = atomicInc(&g_blocks_done, gridDim.x);
        s_is_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (s_is_last && t == 0) {
        float acc = 0.0f;
        for (unsigned i = 0; i < gridDim.x; ++i)
            acc += partial[i];
        total[0] = acc;
        g_blocks_done = 0;
    }
}

__global__ void sum_without_fence(float *partial, float *total, const float *in)
{
    __shared__ float sdata[BLOCK];
    __shared__ bool s_is_last;
    const unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    float sum = block_sum(sdata, t);
    if (t == 0) {
        partial[blockIdx.x] = sum; //~ data-race
        unsigned ticket = atomicInc(&g_blocks_done, gridDim.x);
        s_is_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (s_is_last && t == 0) {
        float acc = 0.0f;
        for (unsigned i = 0; i < gridDim.x; ++i)
            acc += partial[i]; //~ data-race
        total[0] = acc; //~ benign-race
        g_blocks_done = 0; //~ data-race benign-race
    }
}

__global__ void sum_upper_half_finishes(float *partial, float *total, const float *in)
{
    __shared__ float sdata[BLOCK];
    __shared__ bool s_is_last;
    const unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    float sum = block_sum(sdata, t);
    if (t == 0) {
        partial[blockIdx.x] = sum; //~ data-race
        __threadfence();
        unsigned ticket = atomicInc(&g_blocks_done, gridDim.x); //~ data-race
        s_is_last = (ticket >= gridDim.x / 2);
    }
    __syncthreads();
    if (s_is_last && t == 0) {
        float acc = 0.0f;
        for (unsigned i = 0; i < gridDim.x; ++i)
            acc += partial[i]; //~ data-race
        total[0] = acc; //~ benign-race
        g_blocks_done = 0; //~ data-race benign-race
    }
}

__global__ void sum_late_count(float *partial, int *counts, float *total, const float *in)
{
    __shared__ float sdata[BLOCK];
    __shared__ bool s_is_last;
    const unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    float sum = block_sum(sdata, t);
    if (t == 0) {
        partial[blockIdx.x] = sum;
        __threadfence();
        unsigned ticket = atomicInc(&g_blocks_done, gridDim.x);
        counts[blockIdx.x] = BLOCK; //~ data-race
        s_is_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (s_is_last && t == 0) {
        float acc = 0.0f;
        int n = 0;
        for (unsigned i = 0; i < gridDim.x; ++i) {
            acc += partial[i];
            n += counts[i]; //~ data-race
        }
        total[0] = acc / n;
        g_blocks_done = 0;
    }
}

__global__ void sum_last_pass_unsynced(float *partial, float *total, const float *in)
{
    __shared__ float sdata[BLOCK];
    __shared__ bool s_is_last;
    const unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    float sum = block_sum(sdata, t);
    if (t == 0) {
        partial[blockIdx.x] = sum;
        __threadfence();
        unsigned ticket = atomicInc(&g_blocks_done, gridDim.x);
        s_is_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (s_is_last) {
        float acc = 0.0f;
        for (unsigned i = t; i < gridDim.x; i += BLOCK)
            acc += partial[i];
        sdata[t] = acc; //~ data-race
        if (t < 8)
            sdata[t] += sdata[t + 8]; //~ data-race
        __syncthreads();
        if (t == 0) {
            total[0] = sdata[0];
            g_blocks_done = 0;
        }
    }
}

__global__ void sum_wrapping_counter(float *partial, float *total, const float *in)
{
    __shared__ float sdata[BLOCK];
    __shared__ bool s_is_last;
    const unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    float sum = block_sum(sdata, t);
    if (t == 0) {
        partial[blockIdx.x] = sum; //~ data-race
        __threadfence();
        unsigned ticket = atomicInc(&g_blocks_done, 4); //~ data-race
        s_is_last = (ticket == 3);
    }
    __syncthreads();
    if (s_is_last && t == 0) {
        float acc = 0.0f;
        for (unsigned i = 0; i < gridDim.x; ++i)
            acc += partial[i]; //~ data-race
        total[0] = acc; //~ benign-race
        g_blocks_done = 0; //~ data-race benign-race
    }
}

__global__ void sum_flag_forced(float *partial, float *total, const float *in, int force)
{
    __shared__ float sdata[BLOCK];
    __shared__ bool s_is_last;
    const unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    float sum = block_sum(sdata, t);
    if (t == 0) {
        partial[blockIdx.x] = sum; //~ data-race
        __threadfence();
        unsigned ticket = atomicInc(&g_blocks_done, gridDim.x); //~ data-race
        s_is_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (t == 1 && force)
        s_is_last = true;
    __syncthreads();
    if (s_is_last && t == 0) {
        float acc = 0.0f;
        for (unsigned i = 0; i < gridDim.x; ++i)
            acc += partial[i]; //~ data-race
        total[0] = acc; //~ benign-race
        g_blocks_done = 0; //~ data-race benign-race
    }
}
