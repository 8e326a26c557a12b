// Static 1-D __shared__ array: reverse a block-sized chunk through shared
// memory.  The barrier is needed (thread t reads the cell thread
// blockDim.x-1-t wrote).
// syncscope-args: --block-dim 256 --grid-dim 64
// expect-kernel: reverse_block verified

__global__ void reverse_block(float *out, const float *in)
{
    __shared__ float s[256];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    s[tid] = in[gid];
    __syncthreads();
    out[gid] = s[blockDim.x - 1 - tid];
}
