// Double buffering in a loop over tiles: while the block computes on one
// shared buffer it loads the next tile into the other, and one
// `__syncthreads()` per iteration separates the iteration's reads of
// buf[i & 1] from the next iteration's writes to it. The prefetch of the
// next tile sits under `if (i + 1 < tiles)`, a condition every thread of the
// block evaluates alike.
//  * smooth_double_buffer:     prefetch under the condition, compute, one
//                              barrier at the end of the iteration: verified.
//  * smooth_prefetch_barrier:  compute, then the prefetch and the barrier
//                              both inside `if (i + 1 < tiles)` (the last
//                              iteration passes no barrier): verified.
//  * smooth_prefetch_two_sync: a barrier before and after the conditional
//                              prefetch, inside it: verified.
//  * smooth_single_buffer:     one buffer, the next tile loaded over the one
//                              the neighbours still read, no second barrier:
//                              racy.
//  * smooth_every_other_sync:  double buffering with the barrier only in
//                              even iterations: an odd iteration's prefetch
//                              overwrites the buffer the next iteration reads,
//                              with no barrier between: racy.
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: smooth_double_buffer verified
// expect-kernel: smooth_prefetch_barrier verified
// expect-kernel: smooth_prefetch_two_sync verified
// expect-kernel: smooth_single_buffer racy
// expect-kernel: smooth_every_other_sync racy

#define TILE 128

__global__ void smooth_double_buffer(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float buf[2][TILE];
    const int t = threadIdx.x;
    const float *src = in + blockIdx.x * tiles * TILE;
    float acc = 0.0f;
    buf[0][t] = src[t];
    __syncthreads();
    for (int i = 0; i < tiles; ++i) {
        if (i + 1 < tiles)
            buf[(i + 1) & 1][t] = src[(i + 1) * TILE + t];
        const float *cur = buf[i & 1];
        acc += 0.25f * cur[(t + TILE - 1) % TILE] + 0.5f * cur[t] + 0.25f * cur[(t + 1) % TILE];
        __syncthreads();
    }
    out[blockIdx.x * TILE + t] = acc;
}

__global__ void smooth_prefetch_barrier(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float buf[2][TILE];
    const int t = threadIdx.x;
    const float *src = in + blockIdx.x * tiles * TILE;
    float acc = 0.0f;
    buf[0][t] = src[t];
    __syncthreads();
    for (int i = 0; i < tiles; i++) {
        acc += buf[i & 1][(t + 1) % TILE] - buf[i & 1][t];
        if (i + 1 < tiles) {
            buf[(i + 1) & 1][t] = src[(i + 1) * TILE + t];
            __syncthreads();
        }
    }
    out[blockIdx.x * TILE + t] = acc;
}

__global__ void smooth_prefetch_two_sync(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float tile[TILE];
    const int t = threadIdx.x;
    const float *src = in + blockIdx.x * tiles * TILE;
    float acc = 0.0f;
    tile[t] = src[t];
    __syncthreads();
    for (int i = 0; i < tiles; ++i) {
        acc += tile[(t + 1) % TILE];
        if (i + 1 < tiles) {
            __syncthreads();
            tile[t] = src[(i + 1) * TILE + t];
            __syncthreads();
        }
    }
    out[blockIdx.x * TILE + t] = acc;
}

__global__ void smooth_single_buffer(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float tile[TILE];
    const int t = threadIdx.x;
    const float *src = in + blockIdx.x * tiles * TILE;
    float acc = 0.0f;
    tile[t] = src[t];
    __syncthreads();
    for (int i = 0; i < tiles; ++i) {
        acc += tile[(t + 1) % TILE]; //~ data-race
        if (i + 1 < tiles)
            tile[t] = src[(i + 1) * TILE + t]; //~ data-race
        __syncthreads();
    }
    out[blockIdx.x * TILE + t] = acc;
}

__global__ void smooth_every_other_sync(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float buf[2][TILE];
    const int t = threadIdx.x;
    const float *src = in + blockIdx.x * tiles * TILE;
    float acc = 0.0f;
    buf[0][t] = src[t];
    __syncthreads();
    for (int i = 0; i < tiles; ++i) {
        acc += buf[i & 1][(t + 1) % TILE]; //~ data-race
        if (i + 1 < tiles)
            buf[(i + 1) & 1][t] = src[(i + 1) * TILE + t]; //~ data-race
        if ((i & 1) == 0)
            __syncthreads();
    }
    out[blockIdx.x * TILE + t] = acc;
}
