// Transaction barriers (TMA-style bulk copies): one thread issues a bulk
// copy that completes on a `cuda::barrier` and arrives expecting its bytes
// (`cuda::device::barrier_arrive_tx`, `cuda::ptx::mbarrier_arrive_expect_tx`);
// the other threads arrive plainly; the phase completes once every thread
// arrived and the expected bytes landed, so the copy is complete for every
// thread after its wait.
//  * tile_shift_tx:        `memcpy_async_tx` + `barrier_arrive_tx` of the
//                          copy's size, every thread reads a neighbour's
//                          element after the wait: verified.
//  * tile_shift_tx_early:  a neighbour's element read before the wait:
//                          racy (the copy is in flight).
//  * tile_shift_ptx:       `cuda::ptx::cp_async_bulk` +
//                          `mbarrier_arrive_expect_tx` on a `__shared__
//                          uint64_t`, spin on `mbarrier_try_wait`: verified.
//  * tile_shift_ptx_reuse: the tile overwritten by a plain store right after
//                          the wait, which a neighbour reads: racy.
//  * tile_shift_short:     expects half the bytes it copies (the phase may
//                          complete before the copy lands): not-verified.
//  * tile_shift_unexpected: a transaction copy and a plain `arrive()`, no
//                          `expect_tx`: not-verified.
// syncscope-args: --block-dim 128 --grid-dim 64
// expect-kernel: tile_shift_tx verified
// expect-kernel: tile_shift_tx_early racy
// expect-kernel: tile_shift_ptx verified
// expect-kernel: tile_shift_ptx_reuse racy
// expect-kernel: tile_shift_short not-verified
// expect-kernel: tile_shift_unexpected not-verified

#include <cuda/barrier>
#include <cuda/ptx>
#include <cstdint>

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

#define TILE 128

__global__ void tile_shift_tx(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ alignas(16) float tile[TILE];
    __shared__ block_barrier bar;
    const int t = threadIdx.x;
    if (t == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    block_barrier::arrival_token token;
    if (t == 0) {
        cuda::device::memcpy_async_tx(tile, in + blockIdx.x * TILE, cuda::aligned_size_t<16>(sizeof(tile)), bar);
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    out[blockIdx.x * TILE + t] = tile[(t + 1) % TILE] - tile[t];
}

__global__ void tile_shift_tx_early(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ alignas(16) float tile[TILE];
    __shared__ block_barrier bar;
    const int t = threadIdx.x;
    if (t == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    block_barrier::arrival_token token;
    if (t == 0) {
        cuda::device::memcpy_async_tx(tile, in + blockIdx.x * TILE, cuda::aligned_size_t<16>(sizeof(tile)), bar); //~ data-race
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
    } else {
        token = bar.arrive();
    }
    const float right = tile[(t + 1) % TILE]; //~ data-race
    bar.wait(std::move(token));
    out[blockIdx.x * TILE + t] = right - tile[t];
}

__global__ void tile_shift_ptx(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ alignas(16) float tile[TILE];
    __shared__ uint64_t bar;
    const int t = threadIdx.x;
    if (t == 0)
        cuda::ptx::mbarrier_init(&bar, blockDim.x);
    __syncthreads();
    uint64_t token;
    if (t == 0) {
        cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, tile, in + blockIdx.x * TILE, sizeof(tile), &bar);
        token = cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &bar, sizeof(tile));
    } else {
        token = cuda::ptx::mbarrier_arrive(&bar);
    }
    while (!cuda::ptx::mbarrier_try_wait(&bar, token)) {
    }
    out[blockIdx.x * TILE + t] = tile[(t + 1) % TILE] - tile[t];
}

__global__ void tile_shift_ptx_reuse(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ alignas(16) float tile[TILE];
    __shared__ uint64_t bar;
    const int t = threadIdx.x;
    if (t == 0)
        cuda::ptx::mbarrier_init(&bar, blockDim.x);
    __syncthreads();
    uint64_t token;
    if (t == 0) {
        cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, tile, in + blockIdx.x * TILE, sizeof(tile), &bar);
        token = cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &bar, sizeof(tile));
    } else {
        token = cuda::ptx::mbarrier_arrive(&bar);
    }
    while (!cuda::ptx::mbarrier_try_wait(&bar, token)) {
    }
    tile[t] = 2.0f * tile[t]; //~ data-race
    out[blockIdx.x * TILE + t] = tile[(t + 1) % TILE]; //~ data-race
}

__global__ void tile_shift_short(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ alignas(16) float tile[TILE];
    __shared__ block_barrier bar;
    const int t = threadIdx.x;
    if (t == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    block_barrier::arrival_token token;
    if (t == 0) {
        cuda::device::memcpy_async_tx(tile, in + blockIdx.x * TILE, cuda::aligned_size_t<16>(sizeof(tile)), bar);
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile) / 2); //~ not-verified
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    out[blockIdx.x * TILE + t] = tile[(t + 1) % TILE];
}

__global__ void tile_shift_unexpected(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ alignas(16) float tile[TILE];
    __shared__ block_barrier bar;
    const int t = threadIdx.x;
    if (t == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    if (t == 0)
        cuda::device::memcpy_async_tx(tile, in + blockIdx.x * TILE, cuda::aligned_size_t<16>(sizeof(tile)), bar);
    block_barrier::arrival_token token = bar.arrive(); //~ not-verified
    bar.wait(std::move(token));
    out[blockIdx.x * TILE + t] = tile[(t + 1) % TILE];
}
