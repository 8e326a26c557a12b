// An asynchronous copy's range is its byte count from the destination on
// (issue 26, hole 6): `sizeof(buf)` bytes from the row `buf[0]` of a 2-D
// buffer run on into the following rows, so the whole buffer is in flight,
// not only its first row.
//  * cg_whole_early:     `cg::memcpy_async(block, s[0], src, sizeof(s))`,
//                        then the second row read before `cg::wait`: racy
//                        (was verified: the copy was clipped to row 0).
//  * cg_whole:           the same read after `cg::wait`: verified.
//  * barrier_whole_early: `cuda::memcpy_async(block, buf[0], src,
//                        sizeof(buf), bar)` and a read of the last row
//                        before the phase completes: racy (was verified).
//  * barrier_whole:      the read after `bar.arrive_and_wait()`: verified.
//  * cg_one_row:         a copy of one row's bytes, the other row written
//                        by the threads meanwhile: verified (the range
//                        stays the row it names).
// syncscope-args: --block-dim 64 --grid-dim 8
// expect-kernel: cg_whole_early racy
// expect-kernel: cg_whole verified
// expect-kernel: barrier_whole_early racy
// expect-kernel: barrier_whole verified
// expect-kernel: cg_one_row verified

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
namespace cg = cooperative_groups;

#define N 64

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

__global__ void cg_whole_early(const float *in, float *out)
{
    __shared__ float s[2][N];
    cg::thread_block block = cg::this_thread_block();
    const int t = block.thread_rank();
    cg::memcpy_async(block, s[0], in + blockIdx.x * 2 * N, sizeof(s)); //~ data-race
    const float second = s[1][t]; //~ data-race
    cg::wait(block);
    out[blockIdx.x * N + t] = second + s[0][t];
}

__global__ void cg_whole(const float *in, float *out)
{
    __shared__ float s[2][N];
    cg::thread_block block = cg::this_thread_block();
    const int t = block.thread_rank();
    cg::memcpy_async(block, s[0], in + blockIdx.x * 2 * N, sizeof(s));
    cg::wait(block);
    out[blockIdx.x * N + t] = s[1][(t + 1) % N] + s[0][t];
}

__global__ void barrier_whole_early(const float *in, float *out)
{
    __shared__ float buf[4][N];
    __shared__ block_barrier bar;
    auto block = cg::this_thread_block();
    const int t = block.thread_rank();
    if (t == 0)
        init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, buf[0], in + blockIdx.x * 4 * N, sizeof(buf), bar); //~ data-race
    const float last = buf[3][t]; //~ data-race
    bar.arrive_and_wait();
    out[blockIdx.x * N + t] = last + buf[0][t];
}

__global__ void barrier_whole(const float *in, float *out)
{
    __shared__ float buf[4][N];
    __shared__ block_barrier bar;
    auto block = cg::this_thread_block();
    const int t = block.thread_rank();
    if (t == 0)
        init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, buf[0], in + blockIdx.x * 4 * N, sizeof(buf), bar);
    bar.arrive_and_wait();
    out[blockIdx.x * N + t] = buf[3][(t + 1) % N] + buf[0][t];
}

__global__ void cg_one_row(const float *in, float *out)
{
    __shared__ float s[2][N];
    cg::thread_block block = cg::this_thread_block();
    const int t = block.thread_rank();
    cg::memcpy_async(block, s[0], in + blockIdx.x * N, sizeof(s[0]));
    s[1][t] = 2.0f * in[blockIdx.x * N + t];
    cg::wait(block);
    out[blockIdx.x * N + t] = s[1][(t + 1) % N] + s[0][t];
}
