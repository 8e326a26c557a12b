// `cg::memcpy_async` + `cg::wait`: the block copies a tile of the input
// into shared memory asynchronously; the copy may land any time before
// `cg::wait(block)`, which also synchronises the block.  Which thread
// copies which element is not said, so any element of the tile may be
// written by any thread of the block until the wait.
//  * staged_sum:          copy, wait, read, and a barrier before the next
//                         copy overwrites the tile: verified.
//  * staged_sum_early:    reads the tile before waiting: racy (the copy may
//                         not have landed).
//  * staged_sum_overwrite: no barrier between the reads and the next
//                         iteration's copy: racy (a slow reader sees the
//                         next tile arrive).
//  * staged_prefetch:     the next tile's copy is issued before the wait of
//                         the current one (double buffering, `wait_prior<1>`)
//                         -- but only `if (t + 1 < tiles)`: in the last
//                         iteration no newer copy exists, `wait_prior<1>`
//                         leaves the current tile in flight and the read
//                         races with it: racy (was not-verified).
//  * staged_prefetch_fixed: the last iteration waits for everything
//                         (`cg::wait`): verified.
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: staged_sum verified
// expect-kernel: staged_sum_early racy
// expect-kernel: staged_sum_overwrite racy
// expect-kernel: staged_prefetch racy
// expect-kernel: staged_prefetch_fixed verified

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

#define TILE 128

__global__ void staged_sum(const float *in, float *out, int tiles)
{
    __shared__ float tile[TILE];
    cg::thread_block block = cg::this_thread_block();
    float acc = 0.0f;
    for (int t = 0; t < tiles; ++t) {
        cg::memcpy_async(block, tile, in + (blockIdx.x * tiles + t) * TILE, sizeof(float) * TILE);
        cg::wait(block);
        acc += tile[block.thread_rank()] * tile[(block.thread_rank() + 1) % TILE];
        block.sync();
    }
    out[blockIdx.x * TILE + block.thread_rank()] = acc;
}

__global__ void staged_sum_early(const float *in, float *out)
{
    __shared__ float tile[TILE];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, tile, in + blockIdx.x * TILE, sizeof(float) * TILE); //~ data-race
    float first = tile[block.thread_rank()]; //~ data-race
    cg::wait(block);
    out[blockIdx.x * TILE + block.thread_rank()] = first + tile[0];
}

__global__ void staged_sum_overwrite(const float *in, float *out, int tiles)
{
    __shared__ float tile[TILE];
    cg::thread_block block = cg::this_thread_block();
    float acc = 0.0f;
    for (int t = 0; t < tiles; ++t) {
        cg::memcpy_async(block, tile, in + (blockIdx.x * tiles + t) * TILE, sizeof(float) * TILE); //~ data-race
        cg::wait(block);
        acc += tile[(block.thread_rank() + 1) % TILE]; //~ data-race
    }
    out[blockIdx.x * TILE + block.thread_rank()] = acc;
}

__global__ void staged_prefetch(const float *in, float *out, int tiles)
{
    __shared__ float buf[2][TILE];
    cg::thread_block block = cg::this_thread_block();
    float acc = 0.0f;
    cg::memcpy_async(block, buf[0], in + blockIdx.x * tiles * TILE, sizeof(float) * TILE); //~ data-race
    for (int t = 0; t < tiles; ++t) { //~ not-verified
        if (t + 1 < tiles)
            cg::memcpy_async(block, buf[(t + 1) % 2], in + (blockIdx.x * tiles + t + 1) * TILE, sizeof(float) * TILE);
        cg::wait_prior<1>(block);
        acc += buf[t % 2][block.thread_rank()]; //~ data-race
        block.sync();
    }
    out[blockIdx.x * TILE + block.thread_rank()] = acc;
}

__global__ void staged_prefetch_fixed(const float *in, float *out, int tiles)
{
    __shared__ float buf[2][TILE];
    cg::thread_block block = cg::this_thread_block();
    float acc = 0.0f;
    cg::memcpy_async(block, buf[0], in + blockIdx.x * tiles * TILE, sizeof(float) * TILE);
    for (int t = 0; t < tiles; ++t) {
        if (t + 1 < tiles) {
            cg::memcpy_async(block, buf[(t + 1) % 2], in + (blockIdx.x * tiles + t + 1) * TILE, sizeof(float) * TILE);
            cg::wait_prior<1>(block);
        } else {
            cg::wait(block);
        }
        acc += buf[t % 2][block.thread_rank()];
        block.sync();
    }
    out[blockIdx.x * TILE + block.thread_rank()] = acc;
}
