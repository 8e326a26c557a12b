// Block-scope `cuda::pipeline` (`cuda::make_pipeline(block, &state)` with a
// `cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES>`): the
// block copies tiles with `cuda::memcpy_async(block, ...)`; a stage's
// `consumer_wait` completes the copies of every thread of the block, and
// `producer_acquire` waits until every consumer released the stage. The
// model does not represent either ordering exactly yet: both stand in the
// model for a block barrier that is never divergent, so no race is claimed
// that the pipeline's ordering would prevent, and the kernel is
// `not-verified` (named at each use):
//  * blur_stages:        two stages, the next tile's copy (clamped to the
//                        last tile) in flight while the current one is
//                        read: not-verified.
//  * blur_stages_early:  reads the next tile's buffer before its
//                        consumer_wait: a real race with the block's copy
//                        (the copy is in flight whatever the pipeline
//                        orders): racy.
// syncscope-args: --block-dim 128 --grid-dim 32
// expect-kernel: blur_stages not-verified
// expect-kernel: blur_stages_early racy

#include <cooperative_groups.h>
#include <cuda/pipeline>
namespace cg = cooperative_groups;

#define TILE 128
constexpr int kStages = 2;

__global__ void blur_stages(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float buf[kStages][TILE];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const float *src = in + blockIdx.x * tiles * TILE;
    const unsigned t = block.thread_rank();
    float acc = 0.0f;
    pipe.producer_acquire(); //~ not-verified
    cuda::memcpy_async(block, buf[0], src, sizeof(float) * TILE, pipe); //~ not-verified
    pipe.producer_commit();
    for (int i = 0; i < tiles; ++i) { //~ not-verified
        const int next = min(i + 1, tiles - 1);
        pipe.producer_acquire(); //~ not-verified
        cuda::memcpy_async(block, buf[(i + 1) % kStages], src + next * TILE, sizeof(float) * TILE, pipe); //~ not-verified
        pipe.producer_commit();
        pipe.consumer_wait(); //~ not-verified
        acc += buf[i % kStages][(t + 1) % TILE];
        pipe.consumer_release();
    }
    out[blockIdx.x * TILE + t] = acc;
}

template <int Stages>
__global__ void blur_stages_early(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float buf[Stages][TILE];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, Stages> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const float *src = in + blockIdx.x * 2 * TILE;
    const unsigned t = block.thread_rank();
    pipe.producer_acquire(); //~ not-verified
    cuda::memcpy_async(block, buf[0], src, sizeof(float) * TILE, pipe); //~ not-verified
    pipe.producer_commit();
    pipe.producer_acquire(); //~ not-verified
    cuda::memcpy_async(block, buf[1], src + TILE, sizeof(float) * TILE, pipe); //~ data-race not-verified
    pipe.producer_commit();
    pipe.consumer_wait(); //~ not-verified
    float a = buf[0][t];
    float b = buf[1][(t + 1) % TILE]; //~ data-race
    pipe.consumer_release();
    out[blockIdx.x * TILE + t] = a + b;
}

void blur(const float *in, float *out, int tiles)
{
    blur_stages<<<32, TILE>>>(in, out, tiles);
    blur_stages_early<2><<<32, TILE>>>(in, out, tiles);
}
