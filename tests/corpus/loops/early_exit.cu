// Item 6 of issue 19: `break` and `continue` in loops with barriers. A
// `break` taken by the whole block (a uniform condition) leaves the loop in
// the middle of an iteration: the code after the loop then follows what
// the block ran of that iteration since its last barrier, not the last
// iteration's tail. `sweep_until_converged` breaks right after a barrier
// and a `continue` skips the work of inactive threads (verified);
// `sweep_break_before_barrier` breaks between a write and the barrier that
// should order it before the read after the loop (racy, witnessed with the
// block leaving in iteration `stop`). A forward `goto` out of a loop is the
// same exit (and skips the code up to its label): `reduce_until_limit`
// leaves after the barrier (verified), `reduce_until_limit_racy` before it.
// syncscope-args: --block-dim 256 --grid-dim 16
// expect-kernel: sweep_until_converged verified
// expect-kernel: halve_with_continue verified
// expect-kernel: sweep_break_before_barrier racy
// expect-kernel: reduce_until_limit verified
// expect-kernel: reduce_until_limit_racy racy

#define N 256

__global__ void sweep_until_converged(float *out, const float *in, int max_iters)
{
    __shared__ float cur[N];
    const unsigned t = threadIdx.x;
    cur[t] = in[blockIdx.x * N + t];
    __syncthreads();
    for (int it = 0; it < 1000; ++it) {
        float left = cur[(t + N - 1) % N];
        float right = cur[(t + 1) % N];
        __syncthreads();
        cur[t] = 0.5f * (left + right);
        __syncthreads();
        if (it + 1 >= max_iters)
            break;
    }
    out[blockIdx.x * N + t] = cur[N - 1 - t];
}

__global__ void halve_with_continue(float *out, const float *in)
{
    __shared__ float sdata[N];
    const unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * N + t];
    for (unsigned s = N / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (t >= s)
            continue;
        sdata[t] += sdata[t + s];
    }
    // No barrier needed here: thread 0 wrote sdata[0] last itself.
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}

__global__ void sweep_break_before_barrier(float *out, const float *in, int stop)
{
    __shared__ float cur[N];
    const unsigned t = threadIdx.x;
    for (int it = 0; it < 16; ++it) {
        cur[t] = in[(blockIdx.x * 16 + it) * N + t]; //~ data-race
        if (it == stop)
            break;
        __syncthreads();
        out[(blockIdx.x * 16 + it) * N + t] = cur[N - 1 - t];
        __syncthreads();
    }
    out[(blockIdx.x * 16 + 15) * N + t] += cur[(t + 1) % N]; //~ data-race
}

__global__ void reduce_until_limit(float *out, const float *in, unsigned limit)
{
    __shared__ float sdata[N];
    const unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * N + t];
    __syncthreads();
    for (unsigned s = N / 2; s > 0; s >>= 1) {
        if (s < limit)
            goto finish;
        if (t < s)
            sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t == 1)
        out[gridDim.x + blockIdx.x] = sdata[1];
finish:
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}

__global__ void reduce_until_limit_racy(float *out, const float *in, unsigned limit)
{
    __shared__ float sdata[N];
    const unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * N + t];
    __syncthreads();
    for (unsigned s = N / 2; s > 0; s >>= 1) {
        if (t < s)
            sdata[t] += sdata[t + s]; //~ data-race
        if (s < limit)
            goto finish;
        __syncthreads();
    }
finish:
    if (t == 0)
        out[blockIdx.x] = sdata[0] + sdata[1]; //~ data-race
}
