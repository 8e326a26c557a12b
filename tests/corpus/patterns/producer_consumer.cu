// Producer/consumer inside a block.
// `spin_on_flag`: thread 0 produces a value and raises a shared flag; the
// other threads spin until they see it.  Without a barrier (or atomics and
// fences) the flag and the payload are plain shared accesses that race.
// `staged_pipeline`: the first warp produces a batch into shared memory and
// the whole block consumes it, batch after batch; one barrier publishes the
// batch, a second keeps the producers from overwriting it while consumers
// still read.  Both barriers are needed (verified).
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: spin_on_flag racy
// expect-kernel: staged_pipeline verified

__global__ void spin_on_flag(int *out, const int *in)
{
    __shared__ int ready;
    __shared__ int payload;
    int tid = threadIdx.x;

    if (tid == 0) {
        payload = in[blockIdx.x]; //~ data-race
        ready = 1; //~ data-race
    } else {
        while (ready == 0) { //~ data-race
        }
    }
    out[blockIdx.x * blockDim.x + tid] = payload; //~ data-race
}

__global__ void staged_pipeline(float *out, const float *in, int batches)
{
    __shared__ float batch[32];
    int tid = threadIdx.x;
    float acc = 0.0f;

    for (int b = 0; b < batches; b++) {
        if (tid < 32)
            batch[tid] = in[(blockIdx.x * batches + b) * 32 + tid];
        __syncthreads();
        acc += batch[tid % 32] * batch[(tid + 1) % 32];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + tid] = acc;
}
