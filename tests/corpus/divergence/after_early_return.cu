// Thread 0 returns early; every other thread then waits at a barrier thread 0
// never reaches.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: skip_leader divergent

__global__ void skip_leader(int *out, const int *in)
{
    __shared__ int s[128];
    int tid = threadIdx.x;
    if (tid == 0)
        return;
    s[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads(); //~ barrier-divergence
    out[blockIdx.x * blockDim.x + tid] = s[128 - tid];
}
