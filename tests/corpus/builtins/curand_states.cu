// cuRAND's device API: each thread owns one generator state.  A generator
// call reads and updates the state it is given; `curand_init` writes it.
//  * init_states:    thread i initialises states[i]: verified.
//  * draw_samples:   the SDK idiom -- copy the state to a local, draw,
//                    store it back: verified.
//  * draw_shared_state: every thread of a block draws from the block's one
//                    state: racy (the state update is a read and a write).
// syncscope-args: --block-dim 128 --grid-dim 32
// expect-kernel: init_states verified
// expect-kernel: draw_samples verified
// expect-kernel: draw_shared_state racy

#include <curand_kernel.h>

__global__ void init_states(curandState *states, unsigned long long seed)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curand_init(seed, id, 0, &states[id]);
}

__global__ void draw_samples(curandState *states, float *out, int per_thread)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandState local = states[id];
    float acc = 0.0f;
    for (int i = 0; i < per_thread; ++i)
        acc += curand_uniform(&local);
    states[id] = local;
    out[id] = acc / per_thread;
}

__global__ void draw_shared_state(curandState *states, float *out)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    out[id] = curand_normal(&states[blockIdx.x]); //~ data-race
}
