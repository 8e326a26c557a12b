// Issue 17 item 13. The code after a loop that never terminates is
// unreachable: an access there has no witness. `forever` spins in
// `while (1) {}`; `zero_step` never changes its counter; `spin_in_helper`
// spins inside an inlined `__device__` function, so the code after the call
// is unreachable too. All three are verified (nothing reachable races);
// `after_finite_loop` shows that a loop that ends keeps the code after it.
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: forever verified
// expect-kernel: zero_step verified
// expect-kernel: after_finite_loop racy
// expect-kernel: spin_in_helper verified

__device__ void spin()
{
    while (1) {
    }
}

__global__ void forever(int *out)
{
    while (1) {
    }
    out[0] = threadIdx.x;
}

__global__ void zero_step(int *out, int n)
{
    __requires(n > 0);
    for (int i = 0; i < n; i += 0) {
    }
    out[0] = threadIdx.x;
}

__global__ void after_finite_loop(int *out, int n)
{
    for (int i = 0; i < n; i++) {
    }
    out[0] = threadIdx.x; //~ data-race
}

__global__ void spin_in_helper(int *out)
{
    spin();
    out[0] = threadIdx.x;
}
