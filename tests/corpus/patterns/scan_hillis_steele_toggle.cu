// Hillis-Steele exclusive scan in the textbook form: one shared array of two
// halves, and two locals `pout`/`pin` that swap halves every step.  Each
// step writes half `pout` and reads half `pin`; the barrier at the end of the
// step orders it before the next step, which writes the half just read.
// Proving it needs the fact that pout is the same in both threads (it is
// updated uniformly) and pin == 1 - pout.
// syncscope-args: --block-dim 128 --grid-dim 16 -D N=128
// expect-kernel: scan_toggle verified

__global__ void scan_toggle(float *out, const float *in)
{
    __shared__ float temp[2 * N];
    int tid = threadIdx.x;
    int base = blockIdx.x * N;
    int pout = 0, pin = 1;

    temp[pout * N + tid] = tid > 0 ? in[base + tid - 1] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < N; offset *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (tid >= offset)
            temp[pout * N + tid] = temp[pin * N + tid] + temp[pin * N + tid - offset];
        else
            temp[pout * N + tid] = temp[pin * N + tid];
        __syncthreads();
    }
    out[base + tid] = temp[pout * N + tid];
}
