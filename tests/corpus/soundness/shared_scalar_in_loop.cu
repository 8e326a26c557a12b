// Issue 17 item 3. A `__shared__` scalar assigned inside a loop: every
// write counts. In `shared_scalar_loop_racy` thread i adds in trip i with
// no barrier in the loop, so threads in different trips race on `total`.
// In `shared_scalar_loop_synced` the barrier in the loop orders the trips:
// it is needed (removing it brings the race back), and the kernel verifies.
// The barrier before that loop is redundant: only thread 0 writes `total`
// before the loop, and the others touch it from trip 1 on, after the
// loop's barrier of trip 0.
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: shared_scalar_loop_racy racy
// expect-kernel: shared_scalar_loop_synced verified

__global__ void shared_scalar_loop_racy(int *out)
{
    __shared__ int total;
    int t = threadIdx.x;
    if (t == 0)
        total = 0;
    __syncthreads();
    for (int i = 0; i < 4; i++) {
        if (t == i)
            total += t; //~ data-race
    }
    __syncthreads();
    out[t] = total;
}

__global__ void shared_scalar_loop_synced(int *out)
{
    __shared__ int total;
    int t = threadIdx.x;
    if (t == 0)
        total = 0;
    __syncthreads(); //~ redundant-barrier
    for (int i = 0; i < 4; i++) {
        if (t == i)
            total += t;
        __syncthreads();
    }
    out[t] = total;
}
