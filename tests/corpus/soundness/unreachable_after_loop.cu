// Issue 17 item 13. The code after a loop that never terminates is
// unreachable: an access there has no witness. `forever` spins in
// `while (1) {}`; `zero_step` never changes its counter. Both are verified
// (nothing reachable races).
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: forever verified
// expect-kernel: zero_step verified
// expect-kernel: after_finite_loop racy

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
