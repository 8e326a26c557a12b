// A barrier initialised with `blockDim.x * blockDim.y` in a two-dimensional
// block counts the whole block: its `arrive_and_wait()` orders the block
// like `__syncthreads()` and completes the copies of its phase. Here the
// first thread of every row initialises it, to one count: a benign race.
//  * row_tiles:       copies a 16x16 tile a float4 per thread of the first
//                     quarter of each row, reads it after the phase:
//                     verified.
//  * row_tiles_half:  the barrier counts only `blockDim.x` threads of the
//                     2-D block: not the whole block: not-verified, named.
// syncscope-args: --block-dim 16,16 --grid-dim 4
// expect-kernel: row_tiles verified
// expect-kernel: row_tiles_half not-verified

#include <cuda/barrier>

#define N 16

__global__ void row_tiles(const float *in, float *out, int tiles)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ alignas(16) float tile[N][N];
    if (threadIdx.x == 0)
        init(&bar, blockDim.x * blockDim.y); //~ benign-race
    __syncthreads();
    float acc = 0.0f;
    for (int t = 0; t < tiles; ++t) {
        if (threadIdx.x * 4 < N) {
            float4 *dst = reinterpret_cast<float4 *>(&tile[threadIdx.y][threadIdx.x * 4]);
            const float4 *src = reinterpret_cast<const float4 *>(&in[(blockIdx.x * tiles + t) * N * N + threadIdx.y * N + threadIdx.x * 4]);
            cuda::memcpy_async(dst, src, sizeof(float4), bar);
        }
        bar.arrive_and_wait();
        acc += tile[threadIdx.x][threadIdx.y];
        bar.arrive_and_wait();
    }
    out[(blockIdx.x * N + threadIdx.y) * N + threadIdx.x] = acc;
}

__global__ void row_tiles_half(const float *in, float *out)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ float tile[N][N];
    if (threadIdx.x == 0 && threadIdx.y == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    tile[threadIdx.y][threadIdx.x] = in[(blockIdx.x * N + threadIdx.y) * N + threadIdx.x];
    bar.arrive_and_wait(); //~ not-verified
    out[(blockIdx.x * N + threadIdx.y) * N + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
