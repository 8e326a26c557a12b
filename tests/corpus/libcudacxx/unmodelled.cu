// Issue 28 item 1: members of libcu++'s atomics outside the model are
// named in a not-verified finding, never dropped: `wait`/`notify_all`
// (blocking until a value changes), and a `cuda::atomic_flag`.
// syncscope-args: --block-dim 256 --grid-dim 32
// expect-kernel: wait_for_ready not-verified
// expect-kernel: flag_spin not-verified

#include <cuda/atomic>

__global__ void wait_for_ready(cuda::atomic<int> *ready, int *out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        ready->store(1);
        ready->notify_all(); //~ not-verified
    }
    ready->wait(0); //~ not-verified
    out[blockIdx.x * blockDim.x + threadIdx.x] = ready->load();
}

__global__ void flag_spin(int *out)
{
    __shared__ cuda::atomic_flag taken;
    if (!taken.test_and_set()) //~ not-verified
        out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}
