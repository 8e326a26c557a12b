// Issue 26, hole 10: a race is reported with a witness only when the
// witness is an execution that exists. One thread's two updates of a
// one-shot flag cannot both win it (the first changes the flag), and one
// thread's two `atomicAdd(&c, 1)` never return the same ticket, so an
// access guarded by both wins, or by equal tickets, never runs: it races
// with nothing. The race queries asked for winners and distinct tickets
// only between the two threads; a witness where thread 0 won twice (or
// drew one ticket twice) was reported beside the kernel's real race. The
// racy kernels keep exactly their real race; their twins verify.
// syncscope-args: --grid-dim 1
// expect-kernel: won_twice_racy racy
// expect-kernel: won_twice verified
// expect-kernel: same_ticket_racy racy
// expect-kernel: same_ticket verified
// expect-kernel: won_by_exchange_twice verified

__global__ void won_twice_racy(int *flag, int *x) {
    if (atomicCAS(flag, 0, 1) == 0) {
        if (atomicCAS(flag, 0, 1) == 0) x[0] = 1;
    }
    x[1] = x[0] + threadIdx.x; //~ data-race
}

__global__ void won_twice(int *flag, int *x) {
    if (atomicCAS(flag, 0, 1) == 0) {
        if (atomicCAS(flag, 0, 1) == 0) x[0] = 1;
    }
    x[1 + threadIdx.x] = x[0];
}

__global__ void same_ticket_racy(int *count, int *x) {
    int first = atomicAdd(count, 1);
    int second = atomicAdd(count, 1);
    if (first == second) x[0] = first;
    x[1] = x[0] + threadIdx.x; //~ data-race
}

__global__ void same_ticket(int *count, int *x) {
    int first = atomicAdd(count, 1);
    int second = atomicAdd(count, 1);
    if (first == second) x[0] = first;
    x[1 + threadIdx.x] = x[0] + second;
}

__global__ void won_by_exchange_twice(int *flag, float *x) {
    bool opened = atomicExch(flag, 1) == 0;
    bool reopened = atomicExch(flag, 1) == 0;
    if (opened && reopened) x[0] = 1.0f;
    x[1 + threadIdx.x] = x[0];
}
