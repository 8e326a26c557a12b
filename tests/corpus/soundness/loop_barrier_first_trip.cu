// Issue 17 item 1. The barrier inside the loop separates the write made
// before the loop from the reads of the later trips (the first trip reads
// nothing): removing it adds a race, so it is needed, not redundant.
// `loop_barrier_tail_to_after` is the mirror image: only the first trip
// writes, after the barrier, and the code after the loop reads; the
// barrier of the second trip separates them. `loop_barrier_first_trip_racy`
// reads on every trip, the first one included, so the write before the loop
// races with the first trip's read.
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: loop_barrier_first_trip verified
// expect-kernel: loop_barrier_tail_to_after verified
// expect-kernel: loop_barrier_first_trip_racy racy

__global__ void loop_barrier_first_trip(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    for (int k = 0; k < 4; k++) {
        if (k > 0)
            out[t * 4 + k] = s[(t + 1) % 64];
        __syncthreads();
    }
}

__global__ void loop_barrier_tail_to_after(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    for (int k = 0; k < 2; k++) {
        __syncthreads();
        if (k == 0)
            s[t] = t;
    }
    out[t] = s[(t + 1) % 64];
}

__global__ void loop_barrier_first_trip_racy(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t; //~ data-race
    for (int k = 0; k < 4; k++) {
        out[t * 4 + k] = s[(t + 1) % 64]; //~ data-race
        __syncthreads();
    }
}
