// A barrier inside `if (threadIdx.x < 16)`: with 128 threads per block,
// threads 0..15 wait at it and the others never arrive.  Witness: one thread
// below 16 and one at or above it, in the same block.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: first_half_warp_sync divergent

__global__ void first_half_warp_sync(int *out, const int *in)
{
    __shared__ int s[32];
    int tid = threadIdx.x;
    if (tid < 16) {
        s[tid] = in[blockIdx.x * 16 + tid];
        __syncthreads(); //~ barrier-divergence
        out[blockIdx.x * 16 + tid] = s[15 - tid];
    }
}
