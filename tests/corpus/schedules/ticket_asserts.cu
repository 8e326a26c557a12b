// Issue 15, check (a): a C `assert` about what an atomic returned is a
// claim about the schedule, checked under every order of the atomic
// operations the barriers allow (by default). A per-block counter set to
// 0 before a barrier and taken once by every thread returns 0 ... n-1 in
// some order: `old < blockDim.x` holds in every order (verified), while
// `old == threadIdx.x` holds only when the threads come in index order
// and `old < blockDim.x - 1` fails for the thread that comes last
// (assertion findings with the failing order). The claim is checked, not
// assumed: a C `assert` about anything else stays an assumption.
// syncscope-args: --block-dim 64 --grid-dim 4
// expect-kernel: ticket_in_range verified
// expect-kernel: ticket_is_thread_index assertion-failed
// expect-kernel: ticket_off_by_one assertion-failed

#include <assert.h>

__global__ void ticket_in_range(int *out)
{
    __shared__ int next;
    if (threadIdx.x == 0)
        next = 0;
    __syncthreads();
    int old = atomicAdd(&next, 1);
    assert(old < blockDim.x);
    out[blockIdx.x * blockDim.x + threadIdx.x] = old;
}

__global__ void ticket_is_thread_index(int *out)
{
    __shared__ int next;
    if (threadIdx.x == 0)
        next = 0;
    __syncthreads();
    int old = atomicAdd(&next, 1);
    assert(old == threadIdx.x); //~ assertion
    out[blockIdx.x * blockDim.x + threadIdx.x] = old;
}

__global__ void ticket_off_by_one(int *out)
{
    __shared__ int next;
    if (threadIdx.x == 0)
        next = 0;
    __syncthreads();
    int old = atomicAdd(&next, 1);
    assert(old < blockDim.x - 1); //~ assertion
    out[blockIdx.x * blockDim.x + threadIdx.x] = old;
}
