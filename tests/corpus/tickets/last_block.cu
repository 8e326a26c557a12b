// Item 3 of issue 19, the last-block pattern (threadFenceReduction): each
// block writes its partial sum, `__threadfence()`, takes a ticket with
// atomicInc, and the block that sees the counter complete sums the
// partials. That the fence and the atomic order the other blocks' writes
// before the last block's reads, and that one block only is last, is NOT
// modelled yet: a race that involves code after the fenced atomic is
// reported not-verified, naming the atomic's counter (before issue 19 they
// were false definite races). A race elsewhere stays definite: the twin
// forgets the barrier of its block reduction.
// syncscope-args: --block-dim 256 --grid-dim 16
// expect-kernel: sum_with_last_block not-verified
// expect-kernel: sum_with_last_block_racy racy

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
        partial[blockIdx.x] = sum; //~ not-verified
        __threadfence();
        unsigned ticket = atomicInc(&g_blocks_done, gridDim.x); //~ not-verified
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
            total[0] = grand; //~ not-verified
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
        partial[blockIdx.x] = sdata[0]; //~ not-verified
        __threadfence();
        unsigned ticket = atomicInc(&g_blocks_done, gridDim.x); //~ not-verified
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
