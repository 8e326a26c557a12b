// The `__mbarrier_*` primitives of <cuda_awbarrier_primitives.h> on a
// `__shared__ __mbarrier_t`: `__mbarrier_init(&bar, count)`, a token from
// `__mbarrier_arrive(&bar)`, and a spin on `__mbarrier_test_wait` /
// `__mbarrier_try_wait` until the phase completes. With the whole block as
// the expected count this is `cuda::barrier`'s split arrive/wait.
//  * smooth_rows:          store, arrive, independent work, spin, read the
//                          neighbours; the phase reused in a loop: verified.
//  * smooth_rows_racy:     the stored element is written after the arrive
//                          and read by a neighbour after its wait: racy.
//  * smooth_rows_warp:     the barrier expects one warp: not-verified.
//  * smooth_rows_drop:     `__mbarrier_arrive_and_drop`: not-verified.
//  * smooth_rows_polled:   the wait's result kept in a variable instead of
//                          a spin loop: not-verified.
//  * ptx_rows:             the same phase with `cuda::ptx::mbarrier_*` on a
//                          `__shared__ uint64_t`: verified.
//  * ptx_rows_racy:        a neighbour's element read before the wait:
//                          racy.
// syncscope-args: --block-dim 128 --grid-dim 64
// expect-kernel: smooth_rows verified
// expect-kernel: smooth_rows_racy racy
// expect-kernel: smooth_rows_warp not-verified
// expect-kernel: smooth_rows_drop not-verified
// expect-kernel: smooth_rows_polled not-verified
// expect-kernel: ptx_rows verified
// expect-kernel: ptx_rows_racy racy

#include <cuda_awbarrier_primitives.h>
#include <cuda/ptx>
#include <cstdint>

#define ROW 128

#define MBAR_WAIT(bar, tok) \
    do {                    \
    } while (!__mbarrier_try_wait(&bar, tok, 1000))

__global__ void smooth_rows(const float *__restrict__ in, float *__restrict__ out, float *__restrict__ norm, int rows)
{
    __shared__ float row[ROW];
    __shared__ __mbarrier_t bar;
    const int t = threadIdx.x;
    if (t == 0)
        __mbarrier_init(&bar, blockDim.x);
    __syncthreads();
    for (int r = 0; r < rows; ++r) {
        const int g = (blockIdx.x * rows + r) * ROW + t;
        row[t] = in[g];
        __mbarrier_token_t tok = __mbarrier_arrive(&bar);
        norm[g] = in[g] * in[g];
        while (!__mbarrier_test_wait(&bar, tok)) {
            __nanosleep(20);
        }
        out[g] = 0.5f * row[t] + 0.25f * (row[(t + 1) % ROW] + row[(t + ROW - 1) % ROW]);
        __syncthreads();
    }
}

__global__ void smooth_rows_racy(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ float row[ROW];
    __shared__ __mbarrier_t bar;
    const int t = threadIdx.x;
    const int g = blockIdx.x * ROW + t;
    if (t == 0)
        __mbarrier_init(&bar, blockDim.x);
    __syncthreads();
    __mbarrier_token_t tok = __mbarrier_arrive(&bar);
    row[t] = in[g]; //~ data-race
    MBAR_WAIT(bar, tok);
    out[g] = row[(t + 1) % ROW]; //~ data-race
}

__global__ void smooth_rows_warp(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ float row[ROW];
    __shared__ __mbarrier_t bar;
    const int t = threadIdx.x;
    const int g = blockIdx.x * ROW + t;
    if (t == 0)
        __mbarrier_init(&bar, 32);
    __syncthreads();
    row[t] = in[g];
    __mbarrier_token_t tok = __mbarrier_arrive(&bar);
    while (!__mbarrier_test_wait(&bar, tok)); //~ not-verified
    out[g] = row[(t + 1) % ROW];
}

__global__ void smooth_rows_drop(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ float row[ROW];
    __shared__ __mbarrier_t bar;
    const int t = threadIdx.x;
    const int g = blockIdx.x * ROW + t;
    if (t == 0)
        __mbarrier_init(&bar, blockDim.x);
    __syncthreads();
    row[t] = in[g];
    if (t >= ROW / 2) {
        __mbarrier_arrive_and_drop(&bar); //~ not-verified
        return;
    }
    __mbarrier_token_t tok = __mbarrier_arrive(&bar);
    while (!__mbarrier_test_wait(&bar, tok));
    out[g] = row[(t + 1) % ROW];
}

__global__ void smooth_rows_polled(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ float row[ROW];
    __shared__ __mbarrier_t bar;
    const int t = threadIdx.x;
    const int g = blockIdx.x * ROW + t;
    if (t == 0)
        __mbarrier_init(&bar, blockDim.x);
    __syncthreads();
    row[t] = in[g];
    __mbarrier_token_t tok = __mbarrier_arrive(&bar);
    bool done = false;
    while (!done)
        done = __mbarrier_test_wait(&bar, tok); //~ not-verified
    out[g] = row[(t + 1) % ROW];
}

__global__ void ptx_rows(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ float row[ROW];
    __shared__ uint64_t bar;
    const int t = threadIdx.x;
    const int g = blockIdx.x * ROW + t;
    if (t == 0)
        cuda::ptx::mbarrier_init(&bar, blockDim.x);
    __syncthreads();
    row[t] = in[g];
    uint64_t state = cuda::ptx::mbarrier_arrive(&bar);
    while (!cuda::ptx::mbarrier_try_wait(&bar, state)) {
    }
    out[g] = row[(t + 1) % ROW];
}

__global__ void ptx_rows_racy(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ float row[ROW];
    __shared__ uint64_t bar;
    const int t = threadIdx.x;
    const int g = blockIdx.x * ROW + t;
    if (t == 0)
        cuda::ptx::mbarrier_init(&bar, blockDim.x);
    __syncthreads();
    row[t] = in[g]; //~ data-race
    uint64_t state = cuda::ptx::mbarrier_arrive(&bar);
    float right = row[(t + 1) % ROW]; //~ data-race
    while (!cuda::ptx::mbarrier_try_wait(&bar, state)) {
    }
    out[g] = right;
}

void smooth(const float *in, float *out, float *norm, int rows, cudaStream_t s)
{
    smooth_rows<<<64, ROW, 0, s>>>(in, out, norm, rows);
    smooth_rows_racy<<<64, ROW, 0, s>>>(in, out);
    smooth_rows_warp<<<64, ROW, 0, s>>>(in, out);
    smooth_rows_drop<<<64, ROW, 0, s>>>(in, out);
    smooth_rows_polled<<<64, ROW, 0, s>>>(in, out);
    ptx_rows<<<64, ROW, 0, s>>>(in, out);
    ptx_rows_racy<<<64, ROW, 0, s>>>(in, out);
}
