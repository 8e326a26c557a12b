// Barriers in a loop whose trip count depends on threadIdx.x: thread t runs
// t iterations, so thread 0 never reaches them while thread 1 does.  Both
// barriers are divergent; neither is redundant (the first orders the write
// before the neighbour's read, the second the read before the next
// iteration's write).
// syncscope-args: --block-dim 64 --grid-dim 8
// expect-kernel: triangular_steps divergent

__global__ void triangular_steps(int *out)
{
    __shared__ int s[64];
    int tid = threadIdx.x;
    int acc = 0;
    for (int i = 0; i < tid; i++) {
        s[tid] = i;
        __syncthreads(); //~ barrier-divergence
        acc += s[(tid + 1) % 64];
        __syncthreads(); //~ barrier-divergence
    }
    out[blockIdx.x * blockDim.x + tid] = acc;
}
