// Issue 15 (GKLEE-atm, seed 000): with `--deterministic`, two orders of
// the atomic operations that end in different final memory are a
// `schedule-dependent` warning. `atomicExch` of each thread's own index:
// the thread whose exchange comes last wins, so the winner depends on the
// schedule (found, with the two orders). Every thread exchanging the same
// constant is one function for all of them: any order ends the same.
// Atomics never race with atomics, so both kernels are race-free.
// syncscope-args: --deterministic --block-dim 64 --grid-dim 8
// expect-kernel: record_last_visitor verified
// expect-kernel: mark_block_visited verified

#define BLOCK 64

// Which thread of the block passed last: a debugging aid that is not
// reproducible from run to run.
__global__ void record_last_visitor(int *last_visitor, const float *in, float *out)
{
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    out[i] = in[i] * 0.5f;
    atomicExch(&last_visitor[blockIdx.x], threadIdx.x); //~ schedule-dependent
}

// Every thread marks its block as visited: the same value whoever is last.
__global__ void mark_block_visited(int *visited, const float *in, float *out)
{
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    out[i] = in[i] * 0.5f;
    atomicExch(&visited[blockIdx.x], 1);
}
