// Split-phase `cuda::barrier`: `auto token = bar.arrive(); ...;
// bar.wait(std::move(token));`. A thread's accesses before its arrive are
// ordered before every thread's accesses after its wait; what it does
// between the two is ordered with no other thread's accesses on either side.
//  * stencil_overlap:      each thread stores its element, arrives, does
//                          independent work on registers and its own output
//                          cell, waits, then reads its neighbours: verified.
//  * stencil_late_store:   the halo element is written between arrive and
//                          wait and read by another thread after its wait:
//                          racy.
//  * stencil_early_read:   a neighbour's element read between arrive and
//                          wait, before the neighbour may have stored it:
//                          racy.
//  * stencil_two_barriers: a `__syncthreads()` between arrive and wait
//                          (the store before the arrive): verified, and
//                          either barrier alone would do (each is
//                          redundant).
//  * stencil_store_synced: the store between arrive and a `__syncthreads()`
//                          before the wait: not-verified (named).
//  * stencil_loop_between: a loop between arrive and wait: not-verified
//                          (named).
// syncscope-args: --block-dim 256 --grid-dim 32
// expect-kernel: stencil_overlap verified
// expect-kernel: stencil_late_store racy
// expect-kernel: stencil_early_read racy
// expect-kernel: stencil_two_barriers verified
// expect-kernel: stencil_store_synced not-verified
// expect-kernel: stencil_loop_between not-verified

#include <cooperative_groups.h>
#include <cuda/barrier>
#include <utility>
namespace cg = cooperative_groups;

#define BLOCK 256
#define RADIUS 1

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

template <typename T>
__device__ T scale(T x, T k) { return x * k; }

template <typename T>
__global__ void stencil_overlap(const T *__restrict__ in, T *__restrict__ out, T *__restrict__ aux, T k)
{
    __shared__ T tile[BLOCK];
    __shared__ block_barrier bar;
    auto block = cg::this_thread_block();
    const unsigned t = block.thread_rank();
    const unsigned g = blockIdx.x * BLOCK + t;
    if (t == 0)
        init(&bar, block.size());
    block.sync();
    tile[t] = in[g];
    auto token = bar.arrive();
    // Independent work while the others catch up.
    T own = scale(in[g], k);
    aux[g] = own;
    bar.wait(std::move(token));
    T left = tile[(t + BLOCK - RADIUS) % BLOCK];
    T right = tile[(t + RADIUS) % BLOCK];
    out[g] = left + right + own;
}

template <typename T>
__global__ void stencil_late_store(const T *__restrict__ in, T *__restrict__ out, T k)
{
    __shared__ T tile[BLOCK];
    __shared__ block_barrier bar;
    auto block = cg::this_thread_block();
    const unsigned t = block.thread_rank();
    const unsigned g = blockIdx.x * BLOCK + t;
    if (t == 0)
        init(&bar, block.size());
    block.sync();
    auto token = bar.arrive();
    tile[t] = scale(in[g], k); //~ data-race
    bar.wait(std::move(token));
    out[g] = tile[(t + RADIUS) % BLOCK]; //~ data-race
}

template <typename T>
__global__ void stencil_early_read(const T *__restrict__ in, T *__restrict__ out)
{
    __shared__ T tile[BLOCK];
    __shared__ block_barrier bar;
    auto block = cg::this_thread_block();
    const unsigned t = block.thread_rank();
    const unsigned g = blockIdx.x * BLOCK + t;
    if (t == 0)
        init(&bar, block.size());
    block.sync();
    tile[t] = in[g]; //~ data-race
    auto token = bar.arrive();
    T right = tile[(t + RADIUS) % BLOCK]; //~ data-race
    bar.wait(std::move(token));
    out[g] = right + tile[t];
}

template <typename T>
__global__ void stencil_two_barriers(const T *__restrict__ in, T *__restrict__ out)
{
    __shared__ T tile[BLOCK];
    __shared__ block_barrier bar;
    auto block = cg::this_thread_block();
    const unsigned t = block.thread_rank();
    const unsigned g = blockIdx.x * BLOCK + t;
    if (t == 0)
        init(&bar, block.size());
    block.sync();
    tile[t] = in[g];
    auto token = bar.arrive();
    __syncthreads(); //~ redundant-barrier
    bar.wait(std::move(token)); //~ redundant-barrier
    out[g] = tile[(t + RADIUS) % BLOCK];
}

template <typename T>
__global__ void stencil_store_synced(const T *__restrict__ in, T *__restrict__ out)
{
    __shared__ T tile[BLOCK];
    __shared__ block_barrier bar;
    auto block = cg::this_thread_block();
    const unsigned t = block.thread_rank();
    const unsigned g = blockIdx.x * BLOCK + t;
    if (t == 0)
        init(&bar, block.size());
    block.sync();
    auto token = bar.arrive();
    tile[t] = in[g];
    __syncthreads();
    bar.wait(std::move(token)); //~ not-verified
    out[g] = tile[(t + RADIUS) % BLOCK];
}

template <typename T>
__global__ void stencil_loop_between(const T *__restrict__ in, T *__restrict__ out, T *__restrict__ aux, int reps)
{
    __shared__ T tile[BLOCK];
    __shared__ block_barrier bar;
    auto block = cg::this_thread_block();
    const unsigned t = block.thread_rank();
    const unsigned g = blockIdx.x * BLOCK + t;
    if (t == 0)
        init(&bar, block.size());
    block.sync();
    tile[t] = in[g];
    auto token = bar.arrive();
    for (int r = 0; r < reps; ++r)
        aux[g * reps + r] = in[g] * r;
    bar.wait(std::move(token)); //~ not-verified
    out[g] = tile[(t + RADIUS) % BLOCK];
}

void launch(const float *in, float *out, float *aux, int n)
{
    dim3 grid(n / BLOCK), block(BLOCK);
    stencil_overlap<float><<<grid, block>>>(in, out, aux, 2.0f);
    stencil_late_store<float><<<grid, block>>>(in, out, 2.0f);
    stencil_early_read<float><<<grid, block>>>(in, out);
    stencil_two_barriers<float><<<grid, block>>>(in, out);
    stencil_store_synced<float><<<grid, block>>>(in, out);
    stencil_loop_between<float><<<grid, block>>>(in, out, aux, 4);
}
