// The fence of the last-block pattern must run wherever the increment does
// (issue 26, hole 5). `if (publish) __threadfence();` orders nothing when
// `publish` is false, so a block may take its ticket before its partial
// sum is visible, and the last block may read a stale partial: the
// increment's guard must imply the fence's, else there is no last-block
// argument and the partials race with the final pass.
//  * sum_fence_if_publish:  the fence under a flag of the caller, the
//                           increment unconditional (for thread 0): racy
//                           (was verified).
//  * sum_fence_if_few:      the fence only in blocks below a bound: racy.
//  * sum_fence_same_guard:  fence and increment under the same condition,
//                           written as two `if`s: verified.
//  * sum_fence_outer:       the fence before the `if` that takes the
//                           ticket, for every thread: verified.
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: sum_fence_if_publish racy
// expect-kernel: sum_fence_if_few racy
// expect-kernel: sum_fence_same_guard verified
// expect-kernel: sum_fence_outer verified

#define BLOCK 128

__device__ unsigned int g_done_publish = 0;
__device__ unsigned int g_done_few = 0;
__device__ unsigned int g_done_same = 0;
__device__ unsigned int g_done_outer = 0;

__device__ float block_total(float *sdata, unsigned t)
{
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            sdata[t] += sdata[t + s];
        __syncthreads();
    }
    return sdata[0];
}

__global__ void sum_fence_if_publish(float *partial, float *total, const float *in, int publish)
{
    __shared__ float sdata[BLOCK];
    __shared__ bool s_is_last;
    const unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    float sum = block_total(sdata, t);
    if (t == 0) {
        partial[blockIdx.x] = sum; //~ data-race
        if (publish)
            __threadfence();
        unsigned ticket = atomicInc(&g_done_publish, gridDim.x);
        s_is_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (s_is_last && t == 0) {
        float acc = 0.0f;
        for (unsigned i = 0; i < gridDim.x; ++i)
            acc += partial[i]; //~ data-race
        total[0] = acc; //~ benign-race
        g_done_publish = 0; //~ data-race benign-race
    }
}

__global__ void sum_fence_if_few(float *partial, float *total, const float *in)
{
    __shared__ float sdata[BLOCK];
    __shared__ bool s_is_last;
    const unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    float sum = block_total(sdata, t);
    if (t == 0) {
        partial[blockIdx.x] = sum; //~ data-race
        if (blockIdx.x < 8)
            __threadfence();
        unsigned ticket = atomicInc(&g_done_few, gridDim.x);
        s_is_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (s_is_last && t == 0) {
        float acc = 0.0f;
        for (unsigned i = 0; i < gridDim.x; ++i)
            acc += partial[i]; //~ data-race
        total[0] = acc; //~ benign-race
        g_done_few = 0; //~ data-race benign-race
    }
}

__global__ void sum_fence_same_guard(float *partial, float *total, const float *in)
{
    __shared__ float sdata[BLOCK];
    __shared__ bool s_is_last;
    const unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    float sum = block_total(sdata, t);
    if (t == 0)
        partial[blockIdx.x] = sum;
    if (t == 0)
        __threadfence();
    if (t == 0) {
        unsigned ticket = atomicInc(&g_done_same, gridDim.x);
        s_is_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (s_is_last && t == 0) {
        float acc = 0.0f;
        for (unsigned i = 0; i < gridDim.x; ++i)
            acc += partial[i];
        total[0] = acc;
        g_done_same = 0;
    }
}

__global__ void sum_fence_outer(float *partial, float *total, const float *in)
{
    __shared__ float sdata[BLOCK];
    __shared__ bool s_is_last;
    const unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    float sum = block_total(sdata, t);
    if (t == 0)
        partial[blockIdx.x] = sum;
    __threadfence();
    if (t == 0) {
        unsigned ticket = atomicInc(&g_done_outer, gridDim.x);
        s_is_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (s_is_last && t == 0) {
        float acc = 0.0f;
        for (unsigned i = 0; i < gridDim.x; ++i)
            acc += partial[i];
        total[0] = acc;
        g_done_outer = 0;
    }
}
