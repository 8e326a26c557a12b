// Transaction copies issued in a loop (issue 26, hole 7): each iteration
// issues a copy, and the phase waits only for the bytes an `expect_tx`
// counts. After the loop the one copy the model saw stands for one per
// iteration, so the expected bytes must cover all of them; a count that
// covers one chunk lets the phase complete while later chunks are still in
// flight.
//  * chunks_expect_one:   four chunks of a quarter tile, the arrival
//                         expecting one chunk's bytes: not-verified, named
//                         (was verified).
//  * chunks_expect_all:   the same four chunks, expecting the whole tile:
//                         verified.
//  * chunks_read_early:   expecting the whole tile, but a chunk read
//                         before the wait: racy.
//  * chunks_symbolic:     as many chunks as a parameter says, expecting
//                         the whole tile: not-verified (how many bytes the
//                         loop copies is not known).
//  * chunks_ptx_one:      `cp_async_bulk` chunks and
//                         `mbarrier_arrive_expect_tx` of one chunk's bytes:
//                         not-verified (was verified).
// syncscope-args: --block-dim 128 --grid-dim 32
// expect-kernel: chunks_expect_one not-verified
// expect-kernel: chunks_expect_all verified
// expect-kernel: chunks_read_early racy
// expect-kernel: chunks_symbolic not-verified
// expect-kernel: chunks_ptx_one not-verified

#include <cuda/barrier>
#include <cuda/ptx>
#include <cstdint>

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

#define TILE 128
#define CHUNKS 4
#define CHUNK (TILE / CHUNKS)

__global__ void chunks_expect_one(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ alignas(16) float tile[TILE];
    __shared__ block_barrier bar;
    const int t = threadIdx.x;
    if (t == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    block_barrier::arrival_token token;
    if (t == 0) {
        for (int c = 0; c < CHUNKS; ++c)
            cuda::device::memcpy_async_tx(tile + c * CHUNK, in + blockIdx.x * TILE + c * CHUNK, cuda::aligned_size_t<16>(sizeof(float) * CHUNK), bar);
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(float) * CHUNK); //~ not-verified
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    out[blockIdx.x * TILE + t] = tile[(t + 1) % TILE];
}

__global__ void chunks_expect_all(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ alignas(16) float tile[TILE];
    __shared__ block_barrier bar;
    const int t = threadIdx.x;
    if (t == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    block_barrier::arrival_token token;
    if (t == 0) {
        for (int c = 0; c < CHUNKS; ++c)
            cuda::device::memcpy_async_tx(tile + c * CHUNK, in + blockIdx.x * TILE + c * CHUNK, cuda::aligned_size_t<16>(sizeof(float) * CHUNK), bar);
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    out[blockIdx.x * TILE + t] = tile[(t + 1) % TILE];
}

__global__ void chunks_read_early(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ alignas(16) float tile[TILE];
    __shared__ block_barrier bar;
    const int t = threadIdx.x;
    if (t == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    block_barrier::arrival_token token;
    if (t == 0) {
        for (int c = 0; c < CHUNKS; ++c)
            cuda::device::memcpy_async_tx(tile + c * CHUNK, in + blockIdx.x * TILE + c * CHUNK, cuda::aligned_size_t<16>(sizeof(float) * CHUNK), bar); //~ data-race
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
    } else {
        token = bar.arrive();
    }
    const float right = tile[(t + 1) % TILE]; //~ data-race
    bar.wait(std::move(token));
    out[blockIdx.x * TILE + t] = right;
}

__global__ void chunks_symbolic(const float *__restrict__ in, float *__restrict__ out, int chunks)
{
    __shared__ alignas(16) float tile[TILE];
    __shared__ block_barrier bar;
    const int t = threadIdx.x;
    if (t == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    block_barrier::arrival_token token;
    if (t == 0) {
        for (int c = 0; c < chunks; ++c)
            cuda::device::memcpy_async_tx(tile + c * CHUNK, in + blockIdx.x * TILE + c * CHUNK, cuda::aligned_size_t<16>(sizeof(float) * CHUNK), bar);
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile)); //~ not-verified
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    out[blockIdx.x * TILE + t] = tile[(t + 1) % TILE];
}

__global__ void chunks_ptx_one(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ alignas(16) float tile[TILE];
    __shared__ uint64_t bar;
    const int t = threadIdx.x;
    if (t == 0)
        cuda::ptx::mbarrier_init(&bar, blockDim.x);
    __syncthreads();
    uint64_t token;
    if (t == 0) {
        for (int c = 0; c < CHUNKS; ++c)
            cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, tile + c * CHUNK, in + blockIdx.x * TILE + c * CHUNK, sizeof(float) * CHUNK, &bar);
        token = cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &bar, sizeof(float) * CHUNK); //~ not-verified
    } else {
        token = cuda::ptx::mbarrier_arrive(&bar);
    }
    while (!cuda::ptx::mbarrier_try_wait(&bar, token)) {
    }
    out[blockIdx.x * TILE + t] = tile[(t + 1) % TILE];
}
