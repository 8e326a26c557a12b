// `cuda::pipeline` (thread scope, as `cuda::make_pipeline()` gives it) with
// `cuda::memcpy_async`: each thread copies its element of a tile into a
// shared ring buffer; a copy is a write that may land any time until the
// `consumer_wait` that completes its stage, and then only the waiting thread
// sees it: other threads need a barrier.
//  * ring_two_stages:      a prologue stage, then per iteration the next
//                          tile's copy into the other buffer, wait for the
//                          oldest stage, barrier, read a neighbour's element,
//                          barrier before the buffer is refilled: verified.
//  * ring_no_barrier:      the same without the barrier after the wait:
//                          racy (the neighbour's copy may not have landed).
//  * ring_overrun:         two stages in flight ahead of the one read, with
//                          only two buffers: the copy of tile t + 2 lands in
//                          the buffer tile t is being read from: racy.
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: ring_two_stages verified
// expect-kernel: ring_no_barrier racy
// expect-kernel: ring_overrun racy

#include <cuda/pipeline>
#include <cuda/barrier>

#define TILE 128

template <int Stages>
struct Ring {
    float data[Stages][TILE];
};

__global__ void ring_two_stages(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float ring[2][TILE];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    const float *src = in + blockIdx.x * tiles * TILE;
    float acc = 0.0f;
    pipe.producer_acquire();
    cuda::memcpy_async(&ring[0][threadIdx.x], &src[threadIdx.x], sizeof(float), pipe);
    pipe.producer_commit();
    for (int t = 0; t < tiles; ++t) {
        pipe.producer_acquire();
        cuda::memcpy_async(&ring[(t + 1) % 2][threadIdx.x], &src[(t + 1) * TILE + threadIdx.x], sizeof(float), pipe);
        pipe.producer_commit();
        pipe.consumer_wait();
        __syncthreads();
        acc += ring[t % 2][(threadIdx.x + 1) % TILE];
        __syncthreads();
        pipe.consumer_release();
    }
    out[blockIdx.x * TILE + threadIdx.x] = acc;
}

__global__ void ring_no_barrier(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float ring[2][TILE];
    auto pipe = cuda::make_pipeline();
    const float *src = in + blockIdx.x * tiles * TILE;
    float acc = 0.0f;
    pipe.producer_acquire();
    cuda::memcpy_async(&ring[0][threadIdx.x], &src[threadIdx.x], sizeof(float), pipe); //~ data-race
    pipe.producer_commit();
    for (int t = 0; t < tiles; ++t) {
        pipe.producer_acquire();
        cuda::memcpy_async(&ring[(t + 1) % 2][threadIdx.x], &src[(t + 1) * TILE + threadIdx.x], sizeof(float), pipe); //~ data-race
        pipe.producer_commit();
        pipe.consumer_wait();
        acc += ring[t % 2][(threadIdx.x + 1) % TILE]; //~ data-race
        __syncthreads();
        pipe.consumer_release();
    }
    out[blockIdx.x * TILE + threadIdx.x] = acc;
}

__global__ void ring_overrun(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float ring[2][TILE];
    auto pipe = cuda::make_pipeline();
    const float *src = in + blockIdx.x * (tiles + 2) * TILE;
    float acc = 0.0f;
    pipe.producer_acquire();
    cuda::memcpy_async(&ring[0][threadIdx.x], &src[threadIdx.x], sizeof(float), pipe);
    pipe.producer_commit();
    pipe.producer_acquire();
    cuda::memcpy_async(&ring[1][threadIdx.x], &src[TILE + threadIdx.x], sizeof(float), pipe); //~ data-race
    pipe.producer_commit();
    for (int t = 0; t < tiles; ++t) { //~ not-verified
        pipe.producer_acquire();
        cuda::memcpy_async(&ring[(t + 2) % 2][threadIdx.x], &src[(t + 2) * TILE + threadIdx.x], sizeof(float), pipe); //~ data-race
        pipe.producer_commit();
        pipe.consumer_wait();
        __syncthreads();
        acc += ring[t % 2][(threadIdx.x + 1) % TILE]; //~ data-race
        __syncthreads();
        pipe.consumer_release();
    }
    out[blockIdx.x * TILE + threadIdx.x] = acc;
}
