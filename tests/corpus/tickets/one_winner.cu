// Item 3 of issue 19: one winner elected by atomicCAS/atomicExch. A flag
// the kernel only ever sets to one constant (`atomicCAS(&f, 0, 1)`,
// `atomicExch(&f, 1)`) changes at most once, so at most one update sees
// the old value 0: the thread (of the launch for a global flag, of its
// block for a `__shared__` one) that changed it. So `if (atomicCAS(&f, 0,
// 1) == 0) out[0] = ...;` has one writer: verified, in global memory (a
// `__device__` flag, a flag parameter) and in shared memory (set up by one
// thread before a barrier, then the winner publishes to the block), and
// a CAS by odd threads and an exchange by even ones setting one flag to 1.
// Racy twins: the winner resets the flag by a plain write (every thread
// may win again later), two different flags each electing a winner of
// `out[0]`, the test `!= 0` (every loser writes), a CAS in a loop whose
// body also resets the flag with `atomicCAS(&f, 1, 0)` (two values set:
// not a one-shot flag), a `__shared__` flag electing one winner per block
// that writes one global cell. An exchange of the thread's index + 1 is no
// one-constant flag, so the model lets two threads see 0; run from source,
// only the first exchange sees 0 (every value exchanged in is at least 1),
// so that race is `unconfirmed` (possible, not definite; the kernel is
// `unknown`).
// syncscope-args: --block-dim 256 --grid-dim 16
// expect-kernel: elect_cas_global verified
// expect-kernel: elect_exch_param verified
// expect-kernel: elect_cas_shared verified
// expect-kernel: elect_exch_shared verified
// expect-kernel: elect_cas_or_exch verified
// expect-kernel: elect_cas_reset racy
// expect-kernel: elect_two_flags racy
// expect-kernel: elect_losers_write racy
// expect-kernel: elect_cas_loop_release racy
// expect-kernel: elect_shared_flag_global_out racy
// expect-kernel: elect_exch_thread_index unknown

__device__ int g_done = 0;
__device__ int g_reset = 0;
__device__ int g_mixed = 0;

__global__ void elect_cas_global(int *winner, const int *in)
{
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    if (atomicCAS(&g_done, 0, 1) == 0) {
        winner[0] = blockIdx.x * blockDim.x + threadIdx.x;
        winner[1] = v;
    }
}

__global__ void elect_exch_param(int *first_block, int *flag)
{
    if (threadIdx.x == 0 && atomicExch(flag, 1) == 0)
        first_block[0] = blockIdx.x;
}

__global__ void elect_cas_shared(int *leaders, const int *in)
{
    __shared__ int s_claimed;
    __shared__ int s_leader;
    const unsigned t = threadIdx.x;
    if (t == 0)
        s_claimed = 0;
    __syncthreads();
    if (in[blockIdx.x * blockDim.x + t] > 0 && atomicCAS(&s_claimed, 0, 1) == 0)
        s_leader = t;
    __syncthreads();
    if (t == 0)
        leaders[blockIdx.x] = s_leader;
}

__global__ void elect_exch_shared(float *out, const float *in)
{
    __shared__ int s_taken;
    __shared__ float s_first;
    const unsigned t = threadIdx.x;
    if (atomicExch(&s_taken, 7) != 7)
        s_first = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s_first;
}

__global__ void elect_cas_or_exch(int *winner)
{
    int won;
    if (threadIdx.x & 1)
        won = atomicCAS(&g_mixed, 0, 1) == 0;
    else
        won = atomicExch(&g_mixed, 1) != 1;
    if (won)
        winner[0] = threadIdx.x;
}

__global__ void elect_cas_reset(int *winner)
{
    if (atomicCAS(&g_reset, 0, 1) == 0) { //~ data-race
        winner[0] = threadIdx.x; //~ data-race
        g_reset = 0; //~ data-race benign-race
    }
}

__global__ void elect_two_flags(int *winner, int *flag_a, int *flag_b)
{
    if (atomicCAS(flag_a, 0, 1) == 0)
        winner[0] = threadIdx.x; //~ data-race
    if (atomicCAS(flag_b, 0, 1) == 0)
        winner[0] = blockIdx.x; //~ data-race
}

__global__ void elect_losers_write(int *winner, int *flag)
{
    if (atomicCAS(flag, 0, 1) != 0)
        winner[0] = threadIdx.x; //~ data-race
}

__global__ void elect_cas_loop_release(int *winner, int *flag, int rounds)
{
    for (int r = 0; r < rounds; ++r) {
        if (atomicCAS(flag, 0, 1) == 0)
            winner[0] = threadIdx.x; //~ data-race
        atomicCAS(flag, 1, 0);
    }
}

__global__ void elect_shared_flag_global_out(int *winner)
{
    __shared__ int s_claimed;
    if (threadIdx.x == 0)
        s_claimed = 0;
    __syncthreads();
    if (atomicCAS(&s_claimed, 0, 1) == 0)
        winner[0] = threadIdx.x; //~ data-race
}

__global__ void elect_exch_thread_index(int *winner, int *flag)
{
    if (atomicExch(flag, (int)threadIdx.x + 1) == 0)
        winner[0] = threadIdx.x; //~ unconfirmed
}
