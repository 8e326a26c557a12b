// Block-scope `cuda::pipeline` with roles (`cuda::make_pipeline(block,
// &state, role)`): the threads whose role is `producer` acquire a stage,
// copy into its buffer with `cuda::memcpy_async(.., pipe)` and commit it;
// the `consumer`s wait for the stage, read it and release it. A copy of
// stage s is ordered after every consumer's release of stage s - STAGES
// (the acquire waits for it) and before any consumer's `consumer_wait` of
// stage s returns; nothing else is ordered, and a producer's own accesses
// meet every stage.
//  * ring_roles:            four stages, four buffers, producers run ahead
//                           while consumers read: verified.
//  * ring_roles_one_loop:   the same with both roles in one loop over the
//                           tiles (the role chosen inside it): verified.
//  * ring_roles_short_ring: four stages in flight over three buffers, so the
//                           copy of tile i + 3 fills the buffer tile i is
//                           read from: racy.
//  * ring_roles_no_wait:    consumers read without `consumer_wait` (and
//                           never release): racy.
//  * ring_roles_peek:       consumers read the next tile's buffer before
//                           its `consumer_wait`: racy.
//  * ring_roles_twice:      a second `consumer_wait` before the release
//                           waits for the same stage again (libcu++ moves on
//                           at `consumer_release`), so the second tile's
//                           copy may still land: outside the exact model
//                           (named), and the race is found without it: racy.
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: ring_roles verified
// expect-kernel: ring_roles_one_loop verified
// expect-kernel: ring_roles_short_ring racy
// expect-kernel: ring_roles_no_wait racy
// expect-kernel: ring_roles_peek racy
// expect-kernel: ring_roles_twice racy

#include <cooperative_groups.h>
#include <cuda/pipeline>
namespace cg = cooperative_groups;

#define WIDTH 96
#define LOADERS 32
constexpr int kRing = 4;

__global__ void ring_roles(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float ring[kRing][WIDTH];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kRing> state;
    auto block = cg::this_thread_block();
    const int t = threadIdx.x;
    const auto role = t >= WIDTH ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer;
    auto pipe = cuda::make_pipeline(block, &state, role);
    const float *src = in + blockIdx.x * tiles * WIDTH;
    if (t >= WIDTH) {
        for (int i = 0; i < tiles; ++i) {
            pipe.producer_acquire();
            for (int e = t - WIDTH; e < WIDTH; e += LOADERS) {
                cuda::memcpy_async(&ring[i % kRing][e], &src[i * WIDTH + e], sizeof(float), pipe);
            }
            pipe.producer_commit();
        }
    } else {
        float acc = 0.0f;
        for (int i = 0; i < tiles; ++i) {
            pipe.consumer_wait();
            acc += ring[i % kRing][(t + 1) % WIDTH];
            pipe.consumer_release();
        }
        out[blockIdx.x * WIDTH + t] = acc;
    }
}

__global__ void ring_roles_one_loop(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float ring[kRing][WIDTH];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kRing> state;
    auto block = cg::this_thread_block();
    const int t = threadIdx.x;
    const bool loader = t >= WIDTH;
    auto pipe = cuda::make_pipeline(block, &state,
                                    loader ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
    const float *src = in + blockIdx.x * tiles * WIDTH;
    float acc = 0.0f;
    for (int i = 0; i < tiles; ++i) {
        if (loader) {
            pipe.producer_acquire();
            for (int e = t - WIDTH; e < WIDTH; e += LOADERS) {
                cuda::memcpy_async(&ring[i % kRing][e], &src[i * WIDTH + e], sizeof(float), pipe);
            }
            pipe.producer_commit();
        } else {
            pipe.consumer_wait();
            acc += ring[i % kRing][WIDTH - 1 - t];
            pipe.consumer_release();
        }
    }
    if (!loader) {
        out[blockIdx.x * WIDTH + t] = acc;
    }
}

__global__ void ring_roles_short_ring(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float ring[3][WIDTH];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 4> state;
    auto block = cg::this_thread_block();
    const int t = threadIdx.x;
    const auto role = t >= WIDTH ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer;
    auto pipe = cuda::make_pipeline(block, &state, role);
    const float *src = in + blockIdx.x * tiles * WIDTH;
    if (t >= WIDTH) {
        for (int i = 0; i < tiles; ++i) {
            pipe.producer_acquire();
            for (int e = t - WIDTH; e < WIDTH; e += LOADERS) {
                cuda::memcpy_async(&ring[i % 3][e], &src[i * WIDTH + e], sizeof(float), pipe); //~ data-race
            }
            pipe.producer_commit();
        }
    } else {
        float acc = 0.0f;
        for (int i = 0; i < tiles; ++i) {
            pipe.consumer_wait();
            acc += ring[i % 3][(t + 1) % WIDTH]; //~ data-race
            pipe.consumer_release();
        }
        out[blockIdx.x * WIDTH + t] = acc;
    }
}

__global__ void ring_roles_no_wait(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float ring[kRing][WIDTH];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kRing> state;
    auto block = cg::this_thread_block();
    const int t = threadIdx.x;
    const auto role = t >= WIDTH ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer;
    auto pipe = cuda::make_pipeline(block, &state, role);
    const float *src = in + blockIdx.x * tiles * WIDTH;
    if (t >= WIDTH) {
        for (int i = 0; i < tiles; ++i) {
            pipe.producer_acquire();
            for (int e = t - WIDTH; e < WIDTH; e += LOADERS) {
                cuda::memcpy_async(&ring[i % kRing][e], &src[i * WIDTH + e], sizeof(float), pipe); //~ data-race
            }
            pipe.producer_commit();
        }
    } else {
        float acc = 0.0f;
        for (int i = 0; i < tiles; ++i) {
            acc += ring[i % kRing][(t + 1) % WIDTH]; //~ data-race
        }
        out[blockIdx.x * WIDTH + t] = acc;
    }
}

__global__ void ring_roles_peek(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float ring[kRing][WIDTH];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kRing> state;
    auto block = cg::this_thread_block();
    const int t = threadIdx.x;
    const auto role = t >= WIDTH ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer;
    auto pipe = cuda::make_pipeline(block, &state, role);
    const float *src = in + blockIdx.x * tiles * WIDTH;
    if (t >= WIDTH) {
        for (int i = 0; i < tiles; ++i) {
            pipe.producer_acquire();
            for (int e = t - WIDTH; e < WIDTH; e += LOADERS) {
                cuda::memcpy_async(&ring[i % kRing][e], &src[i * WIDTH + e], sizeof(float), pipe); //~ data-race
            }
            pipe.producer_commit();
        }
    } else {
        float acc = 0.0f;
        for (int i = 0; i < tiles; ++i) {
            acc += ring[(i + 1) % kRing][t]; //~ data-race
            pipe.consumer_wait();
            acc += ring[i % kRing][t];
            pipe.consumer_release();
        }
        out[blockIdx.x * WIDTH + t] = acc;
    }
}

__global__ void ring_roles_twice(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float ring[kRing][WIDTH];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kRing> state;
    auto block = cg::this_thread_block();
    const int t = threadIdx.x;
    const auto role = t >= WIDTH ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer;
    auto pipe = cuda::make_pipeline(block, &state, role);
    const float *src = in + blockIdx.x * 2 * WIDTH;
    if (t >= WIDTH) {
        for (int i = 0; i < 2; ++i) { //~ not-verified
            pipe.producer_acquire(); //~ not-verified
            for (int e = t - WIDTH; e < WIDTH; e += LOADERS) {
                cuda::memcpy_async(&ring[i][e], &src[i * WIDTH + e], sizeof(float), pipe); //~ data-race not-verified
            }
            pipe.producer_commit();
        }
    } else {
        pipe.consumer_wait(); //~ not-verified
        pipe.consumer_wait(); //~ not-verified
        out[blockIdx.x * WIDTH + t] = ring[0][t] + ring[1][(t + 1) % WIDTH]; //~ data-race
        pipe.consumer_release();
    }
}
