// __syncthreads_count / _and / _or are block barriers that also return a
// block-wide vote.  Each kernel uses one of them where a __syncthreads()
// would be needed (the read of s[blockDim.x - 1 - tid] after it meets the
// write of another thread before it), so each is verified and none of the
// barriers is redundant.
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: vote_count verified
// expect-kernel: vote_all verified
// expect-kernel: vote_any verified

__global__ void vote_count(int *out, int *counts, const int *in)
{
    __shared__ int s[128];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    s[tid] = in[gid];
    int positives = __syncthreads_count(s[tid] > 0);
    out[gid] = s[blockDim.x - 1 - tid];
    if (tid == 0)
        counts[blockIdx.x] = positives;
}

__global__ void vote_all(int *out, const int *in)
{
    __shared__ int s[128];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    s[tid] = in[gid];
    int all_small = __syncthreads_and(s[tid] < 100);
    out[gid] = all_small ? s[blockDim.x - 1 - tid] : 0;
}

__global__ void vote_any(int *out, const int *in)
{
    __shared__ int s[128];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    s[tid] = in[gid];
    if (__syncthreads_or(s[tid] < 0))
        out[gid] = -s[blockDim.x - 1 - tid];
    else
        out[gid] = s[blockDim.x - 1 - tid];
}
