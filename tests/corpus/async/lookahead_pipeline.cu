// Block-scope `cuda::pipeline` with roles whose producers run a fixed
// lookahead ahead of the consumers: the producer rows refill the ring from
// an inner loop whose own counters (`ahead`, `slot`) carry over from one
// outer iteration to the next, and commit a stage only while `ahead` is
// still inside the input (`if (ahead <= last)`), so the number of commits
// per outer iteration depends on a condition (none once the input is
// consumed, LOOK + 1 in the first one). The stage a producer fills is its
// commit count, which equals `slot` wherever the guard holds: `slot` and the
// commit count step together while the guard holds, the guard only turns
// false as `ahead` grows, and nothing else changes them. The consumers wait
// for stage `t`, read buffer `t % kRing` and release it.
//  * lookahead_ring:          four stages, four buffers, the producers up to
//                             five tiles ahead (the fifth acquire waits for
//                             the first release): verified.
//  * lookahead_ring_while:    the same with a `while` loop and a lower
//                             bound written `last >= ahead`: verified.
//  * lookahead_release_first: consumers release the stage before reading
//                             it, so the copy four stages on may fill the
//                             buffer being read: racy.
//  * lookahead_no_acquire:    producers copy without `producer_acquire`
//                             (nothing waits for the consumers' release):
//                             outside the exact model (named), and the
//                             race is found without it: racy.
//  * lookahead_short_ring:    four stages in flight over three buffers, so
//                             the copy of tile t + 3 fills the buffer tile
//                             t is read from: racy.
//  * lookahead_shifted_slot:  `slot` starts one ahead of the commit count
//                             (`slot = 1` at entry), so the copies land one
//                             buffer later than the stage they belong to:
//                             racy.
//  * lookahead_slot_bumped_outside: the producers also step `slot` outside
//                             the lookahead loop (through a reference), so
//                             it drifts from the commit count: the count is
//                             not known (the exact model is given up,
//                             named), and the race is found without it:
//                             racy.
// syncscope-args: --block-dim 32,10 --grid-dim 8
// expect-kernel: lookahead_ring verified
// expect-kernel: lookahead_ring_while verified
// expect-kernel: lookahead_release_first racy
// expect-kernel: lookahead_no_acquire racy
// expect-kernel: lookahead_short_ring racy
// expect-kernel: lookahead_shifted_slot racy
// expect-kernel: lookahead_slot_bumped_outside racy

#include <cooperative_groups.h>
#include <cuda/pipeline>
namespace cg = cooperative_groups;

#define ROWS 8
#define COLS 32
constexpr int kRing = 4;
constexpr int kLook = 4;

__global__ void lookahead_ring(const float *__restrict__ in, float *__restrict__ out, int len)
{
    __shared__ float ring[kRing][ROWS][COLS];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kRing> state;
    auto block = cg::this_thread_block();
    const bool loader = threadIdx.y >= ROWS;
    auto pipe = cuda::make_pipeline(block, &state,
                                    loader ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
    const int first = blockIdx.x * len * COLS;
    const int last = first + len * COLS - 1;
    float acc = 0.0f;
    int ahead = first;
    int slot = 0;
    for (int pos = first, t = 0; pos <= last; pos += COLS, ++t) {
        if (loader) {
            for (; ahead <= pos + kLook * COLS; ahead += COLS, ++slot) {
                if (ahead <= last) {
                    pipe.producer_acquire();
                    for (int r = threadIdx.y - ROWS; r < ROWS; r += blockDim.y - ROWS) {
                        cuda::memcpy_async(&ring[slot % kRing][r][threadIdx.x],
                                           &in[ahead + r * len + threadIdx.x], sizeof(float), pipe);
                    }
                    pipe.producer_commit();
                }
            }
        } else {
            pipe.consumer_wait();
            for (int c = 0; c < COLS; ++c) {
                acc += ring[t % kRing][threadIdx.y][c];
            }
            pipe.consumer_release();
        }
    }
    if (!loader) {
        out[blockIdx.x * ROWS * COLS + threadIdx.y * COLS + threadIdx.x] = acc;
    }
}

__global__ void lookahead_ring_while(const float *__restrict__ in, float *__restrict__ out, int len)
{
    __shared__ float ring[kRing][ROWS][COLS];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kRing> state;
    auto block = cg::this_thread_block();
    const bool loader = threadIdx.y >= ROWS;
    auto pipe = cuda::make_pipeline(block, &state,
                                    loader ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
    const int first = blockIdx.x * len * COLS;
    const int last = first + len * COLS - 1;
    float acc = 0.0f;
    int ahead = first;
    int slot = 0;
    int t = 0;
    for (int pos = first; pos <= last; pos += COLS) {
        if (!loader) {
            pipe.consumer_wait();
            acc += ring[t % kRing][threadIdx.y][(threadIdx.x + 1) % COLS];
            pipe.consumer_release();
        } else {
            while (ahead <= pos + kLook * COLS) {
                if (last >= ahead) {
                    pipe.producer_acquire();
                    cuda::memcpy_async(&ring[slot % kRing][threadIdx.y - ROWS][threadIdx.x],
                                       &in[ahead + threadIdx.x], sizeof(float), pipe);
                    pipe.producer_commit();
                }
                ahead += COLS;
                slot += 1;
            }
        }
        t++;
    }
    if (!loader) {
        out[blockIdx.x * ROWS * COLS + threadIdx.y * COLS + threadIdx.x] = acc;
    }
}

__global__ void lookahead_release_first(const float *__restrict__ in, float *__restrict__ out, int len)
{
    __shared__ float ring[kRing][ROWS][COLS];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kRing> state;
    auto block = cg::this_thread_block();
    const bool loader = threadIdx.y >= ROWS;
    auto pipe = cuda::make_pipeline(block, &state,
                                    loader ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
    const int first = blockIdx.x * len * COLS;
    const int last = first + len * COLS - 1;
    float acc = 0.0f;
    int ahead = first;
    int slot = 0;
    for (int pos = first, t = 0; pos <= last; pos += COLS, ++t) {
        if (loader) {
            for (; ahead <= pos + kLook * COLS; ahead += COLS, ++slot) {
                if (ahead <= last) {
                    pipe.producer_acquire();
                    for (int r = threadIdx.y - ROWS; r < ROWS; r += blockDim.y - ROWS) {
                        cuda::memcpy_async(&ring[slot % kRing][r][threadIdx.x], //~ data-race
                                           &in[ahead + r * len + threadIdx.x], sizeof(float), pipe);
                    }
                    pipe.producer_commit();
                }
            }
        } else {
            pipe.consumer_wait();
            pipe.consumer_release();
            for (int c = 0; c < COLS; ++c) {
                acc += ring[t % kRing][threadIdx.y][c]; //~ data-race
            }
        }
    }
    if (!loader) {
        out[blockIdx.x * ROWS * COLS + threadIdx.y * COLS + threadIdx.x] = acc;
    }
}

__global__ void lookahead_no_acquire(const float *__restrict__ in, float *__restrict__ out, int len)
{
    __shared__ float ring[kRing][ROWS][COLS];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kRing> state;
    auto block = cg::this_thread_block();
    const bool loader = threadIdx.y >= ROWS;
    auto pipe = cuda::make_pipeline(block, &state,
                                    loader ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
    const int first = blockIdx.x * len * COLS;
    const int last = first + len * COLS - 1;
    float acc = 0.0f;
    int ahead = first;
    int slot = 0;
    for (int pos = first, t = 0; pos <= last; pos += COLS, ++t) { //~ not-verified
        if (loader) {
            for (; ahead <= pos + kLook * COLS; ahead += COLS, ++slot) {
                if (ahead <= last) {
                    for (int r = threadIdx.y - ROWS; r < ROWS; r += blockDim.y - ROWS) {
                        cuda::memcpy_async(&ring[slot % kRing][r][threadIdx.x], //~ data-race not-verified
                                           &in[ahead + r * len + threadIdx.x], sizeof(float), pipe);
                    }
                    pipe.producer_commit();
                }
            }
        } else {
            pipe.consumer_wait(); //~ not-verified
            for (int c = 0; c < COLS; ++c) {
                acc += ring[t % kRing][threadIdx.y][c]; //~ data-race
            }
            pipe.consumer_release();
        }
    }
    if (!loader) {
        out[blockIdx.x * ROWS * COLS + threadIdx.y * COLS + threadIdx.x] = acc;
    }
}

__global__ void lookahead_short_ring(const float *__restrict__ in, float *__restrict__ out, int len)
{
    __shared__ float ring[3][ROWS][COLS];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kRing> state;
    auto block = cg::this_thread_block();
    const bool loader = threadIdx.y >= ROWS;
    auto pipe = cuda::make_pipeline(block, &state,
                                    loader ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
    const int first = blockIdx.x * len * COLS;
    const int last = first + len * COLS - 1;
    float acc = 0.0f;
    int ahead = first;
    int slot = 0;
    for (int pos = first, t = 0; pos <= last; pos += COLS, ++t) {
        if (loader) {
            for (; ahead <= pos + kLook * COLS; ahead += COLS, ++slot) {
                if (ahead <= last) {
                    pipe.producer_acquire();
                    for (int r = threadIdx.y - ROWS; r < ROWS; r += blockDim.y - ROWS) {
                        cuda::memcpy_async(&ring[slot % 3][r][threadIdx.x], //~ data-race
                                           &in[ahead + r * len + threadIdx.x], sizeof(float), pipe);
                    }
                    pipe.producer_commit();
                }
            }
        } else {
            pipe.consumer_wait();
            for (int c = 0; c < COLS; ++c) {
                acc += ring[t % 3][threadIdx.y][c]; //~ data-race
            }
            pipe.consumer_release();
        }
    }
    if (!loader) {
        out[blockIdx.x * ROWS * COLS + threadIdx.y * COLS + threadIdx.x] = acc;
    }
}

__global__ void lookahead_shifted_slot(const float *__restrict__ in, float *__restrict__ out, int len)
{
    __shared__ float ring[kRing][ROWS][COLS];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kRing> state;
    auto block = cg::this_thread_block();
    const bool loader = threadIdx.y >= ROWS;
    auto pipe = cuda::make_pipeline(block, &state,
                                    loader ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
    const int first = blockIdx.x * len * COLS;
    const int last = first + len * COLS - 1;
    float acc = 0.0f;
    int ahead = first;
    int slot = 1;
    for (int pos = first, t = 0; pos <= last; pos += COLS, ++t) {
        if (loader) {
            for (; ahead <= pos + kLook * COLS; ahead += COLS, ++slot) {
                if (ahead <= last) {
                    pipe.producer_acquire();
                    for (int r = threadIdx.y - ROWS; r < ROWS; r += blockDim.y - ROWS) {
                        cuda::memcpy_async(&ring[slot % kRing][r][threadIdx.x], //~ data-race
                                           &in[ahead + r * len + threadIdx.x], sizeof(float), pipe);
                    }
                    pipe.producer_commit();
                }
            }
        } else {
            pipe.consumer_wait();
            for (int c = 0; c < COLS; ++c) {
                acc += ring[t % kRing][threadIdx.y][c]; //~ data-race
            }
            pipe.consumer_release();
        }
    }
    if (!loader) {
        out[blockIdx.x * ROWS * COLS + threadIdx.y * COLS + threadIdx.x] = acc;
    }
}

__global__ void lookahead_slot_bumped_outside(const float *__restrict__ in, float *__restrict__ out, int len)
{
    __shared__ float ring[kRing][ROWS][COLS];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kRing> state;
    auto block = cg::this_thread_block();
    const bool loader = threadIdx.y >= ROWS;
    auto pipe = cuda::make_pipeline(block, &state,
                                    loader ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
    const int first = blockIdx.x * len * COLS;
    const int last = first + len * COLS - 1;
    float acc = 0.0f;
    int ahead = first;
    int slot = 0;
    int &skew = slot;
    for (int pos = first, t = 0; pos <= last; pos += COLS, ++t) { //~ not-verified
        if (loader) {
            for (; ahead <= pos + kLook * COLS; ahead += COLS, ++slot) { //~ not-verified
                if (ahead <= last) {
                    pipe.producer_acquire(); //~ not-verified
                    cuda::memcpy_async(&ring[slot % kRing][threadIdx.y - ROWS][threadIdx.x], //~ data-race not-verified
                                       &in[ahead + threadIdx.x], sizeof(float), pipe);
                    pipe.producer_commit();
                }
            }
            skew += 1;
        } else {
            pipe.consumer_wait(); //~ not-verified
            acc += ring[t % kRing][threadIdx.y][threadIdx.x]; //~ data-race
            pipe.consumer_release();
        }
    }
    if (!loader) {
        out[blockIdx.x * ROWS * COLS + threadIdx.y * COLS + threadIdx.x] = acc;
    }
}
