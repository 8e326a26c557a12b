// A barrier in each branch of a thread-dependent if/else.  Each textual
// __syncthreads() is its own barrier: the even threads reach one, the odd
// threads the other, so both are divergent (on current hardware this may
// happen to work, but it is undefined behaviour in CUDA).
// syncscope-args: --block-dim 64 --grid-dim 8
// expect-kernel: split_barriers divergent

__global__ void split_barriers(int *out, const int *in)
{
    __shared__ int s[64];
    int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * blockDim.x + tid];
    if (tid % 2 == 0) {
        __syncthreads(); //~ barrier-divergence
        out[blockIdx.x * blockDim.x + tid] = s[tid + 1];
    } else {
        __syncthreads(); //~ barrier-divergence
        out[blockIdx.x * blockDim.x + tid] = s[tid - 1];
    }
}
