// Issue 30: schedules found, not only proven absent. The search chooses
// inputs that let threads contend: memory the kernel writes starts at 0
// (the flag is free), `n` is the number of threads it runs (n >= 2), and
// every floating-point comparison of the inputs holds for every thread
// (`in[i] > 0.0f`: every element positive), so that every thread reaches
// the exchange. The first exchange returns 0, and which thread made it
// (the winner) depends on the schedule: both schedules are shown. The
// twin records only that some thread won (the same value whoever wins):
// any order ends the same.
// syncscope-args: --deterministic
// expect-kernel: first_positive_index verified
// expect-kernel: any_positive verified

__global__ void first_positive_index(int *flag, int *winner, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0.0f) {
        if (atomicExch(flag, 1) == 0) //~ schedule-dependent
            *winner = i;
    }
}

__global__ void any_positive(int *flag, int *found, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0.0f) {
        if (atomicExch(flag, 1) == 0)
            *found = 1;
    }
}
