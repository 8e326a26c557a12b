// Item 3 of issue 19: last-block patterns outside the model stay
// not-verified, naming the counter, never verified nor a definite race.
// `count_blocks_any_shape`: the launch is symbolic, so blocks may have
// threadIdx.y > 0 and `threadIdx.x == 0` may hold for several threads of a
// block (several increments per block). `count_every_thread`: every thread
// increments, so the tickets count threads, not blocks. And a fence before
// a ticket every thread takes is no last-block pattern: the tickets stay
// per thread and distinct, `publish_fenced` is verified.
// expect-kernel: count_blocks_any_shape not-verified
// expect-kernel: count_every_thread not-verified
// expect-kernel: publish_fenced verified

__device__ unsigned int g_done = 0;

__global__ void count_blocks_any_shape(int *partial, int *total, const int *in)
{
    __shared__ bool s_last;
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        partial[blockIdx.x] = in[blockIdx.x]; //~ not-verified
    }
    if (threadIdx.x == 0) {
        __threadfence();
        s_last = atomicInc(&g_done, gridDim.x) == gridDim.x - 1; //~ not-verified
    }
    __syncthreads();
    if (s_last && threadIdx.x == 0 && threadIdx.y == 0) {
        int sum = 0;
        for (int b = 0; b < gridDim.x; ++b)
            sum += partial[b];
        total[0] = sum;
        g_done = 0;
    }
}

__global__ void count_every_thread(int *partial, int *total, const int *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[i] = in[i]; //~ not-verified
    __threadfence();
    unsigned ticket = atomicInc(&g_done, gridDim.x * blockDim.x); //~ not-verified
    if (ticket == gridDim.x * blockDim.x - 1) {
        int sum = 0;
        for (int k = 0; k < gridDim.x * blockDim.x; ++k)
            sum += partial[k];
        total[0] = sum;
        g_done = 0;
    }
}

__device__ unsigned int g_tail = 0;

__global__ void publish_fenced(float *queue, const float *in)
{
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    __threadfence();
    unsigned slot = atomicAdd(&g_tail, 1);
    queue[slot] = v;
}
