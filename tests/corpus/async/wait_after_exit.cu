// A thread-scope pipeline in a loop that a block leaves by `break` at the
// top of an iteration (a grid-stride loop over tiles): the copies issued
// after the `break` come only from threads that go on to the wait, so the
// wait completes them.
//  * tiles_after_exit:       copy, `pipeline_consumer_wait_prior<0>`, barrier,
//                            a neighbour's element read: verified.
//  * tiles_after_exit_early: the read with the copy still in flight (the
//                            wait after the barrier): racy.
// syncscope-args: --block-dim 64 --grid-dim 4
// expect-kernel: tiles_after_exit verified
// expect-kernel: tiles_after_exit_early racy

#include <cuda/pipeline>

__global__ void tiles_after_exit(const float *in, float *out, int tiles)
{
    __shared__ float buf[64];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    for (int tile = blockIdx.x;; tile += gridDim.x) {
        if (tile >= tiles) {
            break;
        }
        pipe.producer_acquire();
        cuda::memcpy_async(&buf[threadIdx.x], &in[tile * 64 + threadIdx.x], sizeof(float), pipe);
        pipe.producer_commit();
        cuda::pipeline_consumer_wait_prior<0>(pipe);
        __syncthreads();
        out[tile * 64 + threadIdx.x] = buf[(threadIdx.x + 1) % 64];
        __syncthreads();
    }
}

__global__ void tiles_after_exit_early(const float *in, float *out, int tiles)
{
    __shared__ float buf[64];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    for (int tile = blockIdx.x;; tile += gridDim.x) {
        if (tile >= tiles) {
            break;
        }
        pipe.producer_acquire();
        cuda::memcpy_async(&buf[threadIdx.x], &in[tile * 64 + threadIdx.x], sizeof(float), pipe); //~ data-race
        pipe.producer_commit();
        __syncthreads();
        out[tile * 64 + threadIdx.x] = buf[(threadIdx.x + 1) % 64]; //~ data-race
        cuda::pipeline_consumer_wait_prior<0>(pipe);
        __syncthreads();
    }
}
