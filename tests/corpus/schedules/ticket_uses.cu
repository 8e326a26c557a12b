// Issue 15: what a thread does with its ticket decides whether the order
// of the tickets shows in memory. The thread that draws ticket 0 writing
// its own index (`if (old == 0) out[0] = threadIdx.x`) is a first-wins
// pattern (found). Filling slots below 4 with one constant is the same
// function of the ticket for every thread (the two threads of a swap
// exchange tickets and write the same cells: no finding); choosing which
// threads write by their index (`threadIdx.x < 4`) makes which slots are
// filled depend on the order (found). A ticket forwarded to `atomicExch`
// makes the exchanged cell end with the last thread's ticket (found at
// the exchange; the counter itself is cleared by the exchange argument).
// Tickets are distinct, so none of these writes race.
// syncscope-args: --deterministic --block-dim 8 --grid-dim 2
// expect-kernel: first_ticket_writes_index verified
// expect-kernel: low_slots_marked verified
// expect-kernel: low_threads_mark_slots verified
// expect-kernel: last_ticket_forwarded verified

__global__ void first_ticket_writes_index(int *count, int *first)
{
    int old = atomicAdd(count, 1); //~ schedule-dependent
    if (old == 0)
        first[0] = threadIdx.x;
}

__global__ void low_slots_marked(int *count, int *slots)
{
    int slot = atomicAdd(count, 1);
    if (slot < 4)
        slots[slot] = 7;
}

__global__ void low_threads_mark_slots(int *count, int *slots)
{
    int slot = atomicAdd(count, 1); //~ schedule-dependent
    if (threadIdx.x < 4)
        slots[slot] = 7;
}

__global__ void last_ticket_forwarded(int *count, int *last)
{
    int old = atomicAdd(count, 1);
    atomicExch(last, old); //~ schedule-dependent
}
