// Asynchronous copies are outside the model: `cg::memcpy_async` with
// `cg::wait`, and `cuda::pipeline` with its producer/consumer calls, are
// reported `not-verified` at the copy -- never silently verified.  Both
// kernels stage tiles of the input through shared memory; `staged_sum`
// waits for each copy before reading, `ring_overrun` keeps three copies in
// flight over two buffers (a real race, which the model cannot yet see).
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: staged_sum not-verified
// expect-kernel: ring_overrun not-verified

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/pipeline>
namespace cg = cooperative_groups;

__global__ void staged_sum(const float *in, float *out, int tiles)
{
    __shared__ float tile[128];
    cg::thread_block block = cg::this_thread_block();
    float acc = 0.0f;
    for (int t = 0; t < tiles; ++t) {
        cg::memcpy_async(block, tile, in + (blockIdx.x * tiles + t) * 128, sizeof(float) * 128); //~ not-verified
        cg::wait(block);
        acc += tile[block.thread_rank()];
        block.sync();
    }
    out[blockIdx.x * 128 + block.thread_rank()] = acc;
}

__global__ void ring_overrun(const float *in, float *out, int tiles)
{
    __shared__ float ring[2][128];
    auto pipe = cuda::make_pipeline();
    float acc = 0.0f;
    for (int t = 0; t < tiles; ++t) {
        pipe.producer_acquire(); //~ not-verified
        cuda::memcpy_async(&ring[t % 2][threadIdx.x], &in[(blockIdx.x * tiles + t) * 128 + threadIdx.x], sizeof(float), pipe); //~ not-verified
        pipe.producer_commit(); //~ not-verified
        if (t >= 2) {
            pipe.consumer_wait(); //~ not-verified
            acc += ring[t % 2][(threadIdx.x + 1) % 128];
            pipe.consumer_release(); //~ not-verified
        }
    }
    out[blockIdx.x * 128 + threadIdx.x] = acc;
}
