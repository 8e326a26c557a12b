// Block-scope `cuda::pipeline` (`cuda::make_pipeline(block, &state)` with a
// `cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES>`): the
// block copies tiles with `cuda::memcpy_async(block, ...)`; a stage's
// `consumer_wait` returns once every thread's copies of that stage landed,
// and `producer_acquire` of stage s waits until every thread released stage
// s - STAGES. The model follows exactly these two orderings (and nothing
// else: a pipeline operation orders no plain access):
//  * blur_stages:          two stages, two buffers, the next tile's copy
//                          (clamped to the last tile) in flight while the
//                          current one is read: verified.
//  * blur_stages_early:    reads the next tile's buffer before its
//                          consumer_wait: a real race with the block's copy
//                          (the copy is in flight): racy.
//  * blur_three_stages:    three stages in flight, three buffers: verified.
//  * blur_three_stages_two_buffers: three stages in flight but two buffers,
//                          so the copy two tiles ahead overwrites the buffer
//                          being read: racy.
//  * blur_stages_no_release: the stage's buffer read after its
//                          consumer_release, while the copy two stages on
//                          may already fill it: racy.
//  * blur_stages_wait_twice: two `consumer_wait`s in a row wait for the
//                          same (first) stage (libcu++ moves to the next
//                          stage at `consumer_release`), so the second
//                          tile's copy may still land while it is read:
//                          outside the exact model, named: not-verified
//                          (was wrongly verified when each wait counted as
//                          the next stage's).
//  * scale_stage_plain:    a plain store before `consumer_wait` read by a
//                          neighbour after it: the pipeline orders only its
//                          copies, so racy.
// syncscope-args: --block-dim 128 --grid-dim 32
// expect-kernel: blur_stages verified
// expect-kernel: blur_stages_early racy
// expect-kernel: blur_three_stages verified
// expect-kernel: blur_three_stages_two_buffers racy
// expect-kernel: blur_stages_no_release racy
// expect-kernel: blur_stages_wait_twice not-verified
// expect-kernel: scale_stage_plain racy

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
    pipe.producer_acquire();
    cuda::memcpy_async(block, buf[0], src, sizeof(float) * TILE, pipe);
    pipe.producer_commit();
    for (int i = 0; i < tiles; ++i) {
        const int next = min(i + 1, tiles - 1);
        pipe.producer_acquire();
        cuda::memcpy_async(block, buf[(i + 1) % kStages], src + next * TILE, sizeof(float) * TILE, pipe);
        pipe.producer_commit();
        pipe.consumer_wait();
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
    pipe.producer_acquire();
    cuda::memcpy_async(block, buf[0], src, sizeof(float) * TILE, pipe);
    pipe.producer_commit();
    pipe.producer_acquire();
    cuda::memcpy_async(block, buf[1], src + TILE, sizeof(float) * TILE, pipe); //~ data-race
    pipe.producer_commit();
    pipe.consumer_wait();
    float a = buf[0][t];
    float b = buf[1][(t + 1) % TILE]; //~ data-race
    pipe.consumer_release();
    out[blockIdx.x * TILE + t] = a + b;
}

__global__ void blur_three_stages(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    constexpr int depth = 3;
    __shared__ float buf[depth][TILE];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, depth> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const float *src = in + blockIdx.x * tiles * TILE;
    const unsigned t = block.thread_rank();
    float acc = 0.0f;
    for (int s = 0; s < depth - 1; ++s) {
        pipe.producer_acquire();
        cuda::memcpy_async(block, buf[s], src + min(s, tiles - 1) * TILE, sizeof(float) * TILE, pipe);
        pipe.producer_commit();
    }
    for (int i = 0; i < tiles; ++i) {
        pipe.producer_acquire();
        cuda::memcpy_async(block, buf[(i + depth - 1) % depth], src + min(i + depth - 1, tiles - 1) * TILE,
                           sizeof(float) * TILE, pipe);
        pipe.producer_commit();
        pipe.consumer_wait();
        acc += buf[i % depth][(t + 1) % TILE] - buf[i % depth][t];
        pipe.consumer_release();
    }
    out[blockIdx.x * TILE + t] = acc;
}

__global__ void blur_three_stages_two_buffers(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float buf[2][TILE];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 3> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const float *src = in + blockIdx.x * tiles * TILE;
    const unsigned t = block.thread_rank();
    float acc = 0.0f;
    for (int s = 0; s < 2; ++s) {
        pipe.producer_acquire();
        cuda::memcpy_async(block, buf[s], src + min(s, tiles - 1) * TILE, sizeof(float) * TILE, pipe);
        pipe.producer_commit();
    }
    for (int i = 0; i < tiles; ++i) {
        pipe.producer_acquire();
        cuda::memcpy_async(block, buf[(i + 2) % 2], src + min(i + 2, tiles - 1) * TILE, //~ data-race
                           sizeof(float) * TILE, pipe);
        pipe.producer_commit();
        pipe.consumer_wait();
        acc += buf[i % 2][(t + 1) % TILE]; //~ data-race
        pipe.consumer_release();
    }
    out[blockIdx.x * TILE + t] = acc;
}

__global__ void blur_stages_no_release(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float buf[kStages][TILE];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const float *src = in + blockIdx.x * tiles * TILE;
    const unsigned t = block.thread_rank();
    float acc = 0.0f;
    pipe.producer_acquire();
    cuda::memcpy_async(block, buf[0], src, sizeof(float) * TILE, pipe);
    pipe.producer_commit();
    for (int i = 0; i < tiles; ++i) {
        const int next = min(i + 1, tiles - 1);
        pipe.producer_acquire();
        cuda::memcpy_async(block, buf[(i + 1) % kStages], src + next * TILE, sizeof(float) * TILE, pipe); //~ data-race
        pipe.producer_commit();
        pipe.consumer_wait();
        pipe.consumer_release();
        acc += buf[i % kStages][(t + 1) % TILE]; //~ data-race
    }
    out[blockIdx.x * TILE + t] = acc;
}

__global__ void blur_stages_wait_twice(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ float buf[kStages][TILE];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const float *src = in + blockIdx.x * 2 * TILE;
    const unsigned t = block.thread_rank();
    pipe.producer_acquire(); //~ not-verified
    cuda::memcpy_async(block, buf[0], src, sizeof(float) * TILE, pipe); //~ not-verified
    pipe.producer_commit();
    pipe.producer_acquire(); //~ not-verified
    cuda::memcpy_async(block, buf[1], src + TILE, sizeof(float) * TILE, pipe); //~ not-verified
    pipe.producer_commit();
    pipe.consumer_wait(); //~ not-verified
    pipe.consumer_wait(); //~ not-verified
    out[blockIdx.x * TILE + t] = buf[0][t] + buf[1][(t + 1) % TILE];
    pipe.consumer_release();
    pipe.consumer_release();
}

__global__ void scale_stage_plain(const float *__restrict__ in, const float *__restrict__ gain, float *__restrict__ out)
{
    __shared__ float buf[TILE];
    __shared__ float scale[TILE];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 1> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const unsigned t = block.thread_rank();
    pipe.producer_acquire();
    cuda::memcpy_async(block, buf, in + blockIdx.x * TILE, sizeof(float) * TILE, pipe);
    pipe.producer_commit();
    scale[t] = gain[blockIdx.x * TILE + t]; //~ data-race
    pipe.consumer_wait();
    out[blockIdx.x * TILE + t] = buf[t] * scale[(t + 1) % TILE]; //~ data-race
    pipe.consumer_release();
}

void blur(const float *in, float *out, int tiles)
{
    blur_stages<<<32, TILE>>>(in, out, tiles);
    blur_stages_early<2><<<32, TILE>>>(in, out, tiles);
}
