// Items 5 and 2 of issue 19: the relaxation loop of graph and stencil codes.
// Each sweep thread 0 clears a `__shared__` flag, threads that still change
// raise it (all the same value: a `benign-race` hint), and after a barrier
// the whole block reads it in the `do ... while` condition: one value for the
// block, so the loop and its barriers are uniform (verified). The racy twin
// reads the flag without the barrier after the raising writes, so a thread
// may leave the loop while another still raises it.
// syncscope-args: --block-dim 128 --grid-dim 64
// expect-kernel: relax_until_stable verified
// expect-kernel: relax_until_stable_early_test racy

#define BLOCK 128

__device__ float relax(float v)
{
    return 0.5f * v;
}

__global__ void relax_until_stable(float *data, float limit)
{
    __shared__ int s_changed;
    float *mine = data + blockIdx.x * BLOCK;
    do {
        __syncthreads();
        if (threadIdx.x == 0)
            s_changed = 0;
        __syncthreads();
        if (mine[threadIdx.x] > limit) {
            mine[threadIdx.x] = relax(mine[threadIdx.x]);
            s_changed = 1; //~ benign-race
        }
        __syncthreads();
    } while (s_changed);
}

__global__ void relax_until_stable_early_test(float *data, float limit)
{
    __shared__ int s_changed;
    float *mine = data + blockIdx.x * BLOCK;
    do {
        __syncthreads();
        if (threadIdx.x == 0)
            s_changed = 0;
        __syncthreads();
        if (mine[threadIdx.x] > limit) {
            mine[threadIdx.x] = relax(mine[threadIdx.x]);
            s_changed = 1; //~ benign-race data-race
        }
    } while (s_changed); //~ data-race
}
