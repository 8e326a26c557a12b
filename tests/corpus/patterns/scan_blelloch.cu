// Blelloch's work-efficient exclusive scan of 2 * blockDim.x elements: an
// up-sweep building partial sums in place (offset doubles while the number
// of active threads d halves), clearing the last element, and a down-sweep
// (offset halves while d doubles).  In every step the cells of different
// threads are disjoint (they are offset * (2t + 1) - 1 and offset * (2t + 2)
// - 1); the barrier at the end of each step orders the steps.  Loads and
// stores are coalesced (thread t handles t and t + blockDim.x), so every
// barrier is needed.
// syncscope-args: --block-dim 128 --grid-dim 16 -D N=256
// expect-kernel: scan_work_efficient verified

__global__ void scan_work_efficient(float *out, const float *in)
{
    __shared__ float temp[N];
    int tid = threadIdx.x;
    int base = blockIdx.x * N;
    int offset = 1;

    temp[tid] = in[base + tid];
    temp[tid + N / 2] = in[base + tid + N / 2];
    __syncthreads();

    for (int d = N >> 1; d > 0; d >>= 1) {
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
        __syncthreads();
    }

    if (tid == 0)
        temp[N - 1] = 0.0f;

    for (int d = 1; d < N; d *= 2) {
        offset >>= 1;
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            float t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
        __syncthreads();
    }

    out[base + tid] = temp[tid];
    out[base + tid + N / 2] = temp[tid + N / 2];
}
