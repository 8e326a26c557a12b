// `__enabled()` in a loop-head invariant: a thread is enabled at the head
// of iteration k when it has not left the loop, i.e. the loop's condition
// held at every earlier iteration.  GPUVerify users state that a
// grid-stride loop is uniform with `__uniform_bool(__enabled())`.
//  * grid_stride_even:   4096 elements over 1024 threads: every thread runs
//                        4 iterations, the invariants hold: verified.
//  * grid_stride_ragged: 1000 elements: thread 0 runs one iteration, thread
//                        1000 none; the uniformity invariant fails at the
//                        head of iteration 1 (witness: two threads, n and
//                        the iteration): assertion-failed.
//  * grid_stride_overlap: the stride is one block, not the grid: blocks
//                        update each other's elements: racy.
//--blockDim=64 --gridDim=16
// syncscope-args: --block-dim 64 --grid-dim 16
// expect-kernel: grid_stride_even verified
// expect-kernel: grid_stride_ragged assertion-failed
// expect-kernel: grid_stride_overlap racy

__global__ void grid_stride_even(int *A, int n)
{
    __requires(n == 4096);
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
         __invariant(__uniform_bool(__enabled())),
         __invariant(__implies(__enabled(),
                               i % (blockDim.x * gridDim.x) == blockIdx.x * blockDim.x + threadIdx.x)),
         i < n;
         i += blockDim.x * gridDim.x) {
        A[i] = A[i] + 1;
    }
}

__global__ void grid_stride_ragged(int *A, int n)
{
    __requires(n == 1000);
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
         __invariant(__uniform_bool(__enabled())), //~ assertion
         i < n;
         i += blockDim.x * gridDim.x) {
        A[i] = A[i] + 1;
    }
}

__global__ void grid_stride_overlap(int *A, int n)
{
    __requires(n == 4096);
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
         __invariant(__implies(__enabled(), i % blockDim.x == threadIdx.x)),
         i < n;
         i += blockDim.x) {
        A[i] = A[i] + 1; //~ data-race
    }
}
