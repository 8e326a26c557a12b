// Issue 30: two exchanges of different constants that a barrier
// separates. Inside one barrier interval every exchange on the cell is
// the same function (store 1, then store 2), and the barrier orders the
// two intervals, so no two operations that can swap differ: proven
// deterministic, for a `__shared__` flag and for a global flag each
// block keeps in a cell of its own (a solver query shows no two blocks
// share one). The twins: the same two constants with no barrier between
// them, chosen by the thread's parity (the last exchange decides), and
// the barrier-separated exchanges whose second result names the thread
// that saw the first phase's value. (Without `--deterministic` the race
// check finds the barriers redundant: atomics never race. So they are for
// the final memory too: every thread's last exchange stores 2, whatever
// the order; the proof needs them, the kernels' outcome does not.)
// syncscope-args: --deterministic --block-dim 32 --grid-dim 4
// expect-kernel: phase_flag_shared verified
// expect-kernel: phase_flag_per_block verified
// expect-kernel: phase_flag_by_parity verified
// expect-kernel: phase_flag_first_to_see verified

__global__ void phase_flag_shared(int *out)
{
    __shared__ int phase;
    atomicExch(&phase, 1);
    __syncthreads(); //~ redundant-barrier
    atomicExch(&phase, 2);
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = phase;
}

__global__ void phase_flag_per_block(int *phase)
{
    atomicExch(&phase[blockIdx.x], 1);
    __syncthreads(); //~ redundant-barrier
    atomicExch(&phase[blockIdx.x], 2);
}

__global__ void phase_flag_by_parity(int *phase)
{
    if (threadIdx.x % 2 == 0)
        atomicExch(&phase[blockIdx.x], 1); //~ schedule-dependent
    else
        atomicExch(&phase[blockIdx.x], 2);
}

// After the barrier, the exchange that finds the first phase's 1 is the
// block's first: which thread it is depends on the schedule.
__global__ void phase_flag_first_to_see(int *phase, int *first)
{
    atomicExch(&phase[blockIdx.x], 1);
    __syncthreads(); //~ redundant-barrier
    if (atomicExch(&phase[blockIdx.x], 2) == 1) //~ schedule-dependent
        atomicExch(&first[blockIdx.x], (int)threadIdx.x);
}
