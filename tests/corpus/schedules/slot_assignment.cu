// Issue 15: slots taken from a counter (`slot = atomicAdd(count, 1)`) are
// distinct, so the writes through them never race; but which thread gets
// which slot is the schedule's choice. Writing the thread's own index to
// its slot makes the output order schedule-dependent (found, with the two
// orders of the adds). Writing the same value to every slot (marking
// slots used) is order-independent: the two threads of any swap exchange
// their slots and write the same thing (no finding). Stream compaction
// (`out[atomicAdd(count, 1)] = v` for the positive inputs) keeps the
// selected values in the order the threads took their slots (found; the
// search gives the input array the values index + 1).
// syncscope-args: --deterministic --block-dim 32 --grid-dim 4
// expect-kernel: append_thread_ids verified
// expect-kernel: mark_slots_used verified
// expect-kernel: compact_positive verified

__global__ void append_thread_ids(int *count, int *ids)
{
    const int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int slot = atomicAdd(count, 1); //~ schedule-dependent
    ids[slot] = gid;
}

__global__ void mark_slots_used(int *count, int *used)
{
    int slot = atomicAdd(count, 1);
    used[slot] = 1;
}

__global__ void compact_positive(const int *in, int *out, int *count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    if (v > 0) {
        int slot = atomicAdd(count, 1); //~ schedule-dependent
        out[slot] = v;
    }
}
