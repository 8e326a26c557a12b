// Issue 30: atomics inside loops. The search unrolls a loop whose bounds
// are values of the launch (each iteration an event of its own, with its
// counter) and swaps two threads' operations of one iteration. Each
// round, every thread stores its own index in the round's slot: the last
// one stays, a different thread in each schedule. Counting the rounds'
// visitors instead commutes (one family, results discarded): proven.
// syncscope-args: --deterministic --block-dim 32 --grid-dim 2
// expect-kernel: last_visitor_per_round verified
// expect-kernel: visitors_per_round verified
// expect-kernel: owner_per_round verified

#define ROUNDS 4

__global__ void last_visitor_per_round(int *last)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = 0; r < ROUNDS; ++r)
        atomicExch(&last[r], i); //~ schedule-dependent
}

__global__ void visitors_per_round(int *visits)
{
    for (int r = 0; r < ROUNDS; ++r)
        atomicAdd(&visits[r], 1);
}

// A claim per round that only the round's first thread sees: its result
// decides which thread records itself as the round's owner.
__global__ void owner_per_round(int *claimed, int *owner)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = 0; r < ROUNDS; ++r) {
        if (atomicCAS(&claimed[r], 0, 1) == 0) //~ schedule-dependent
            atomicExch(&owner[r], i);
    }
}
