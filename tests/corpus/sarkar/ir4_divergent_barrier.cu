// Sarkar et al., Example 1, IR 4 in isolation: a barrier under
// `if (tid % 2 == 0)` is reached by the even threads only.  The witness
// shows one even and one odd threadIdx.x of the same block.
// The accesses are otherwise race-free: both threads of any pair that meets
// on B[t + 2] / B[t] are even and therefore both pass the barrier.
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: ir4_divergent_barrier divergent

__global__ void ir4_divergent_barrier(int *out)
{
    __shared__ int B[66];
    int tid = threadIdx.x;

    if (tid % 2 == 0) {
        B[tid + 2] = tid;
        __syncthreads(); //~ barrier-divergence
        out[tid] = B[tid];
    }
}
