// A local variable assigned twice: the access uses the SECOND value.
// In `mirrored` the index ends up as blockDim.x-1-tid, a permutation, so the
// writes are disjoint (verified).  In `halved` it ends up as tid / 2, so
// threads 0 and 1 write the same cell (racy).  A front end that kept the
// first value (tid) would get both wrong.
// syncscope-args: --block-dim 64 --grid-dim 8
// expect-kernel: mirrored verified
// expect-kernel: halved racy

__global__ void mirrored(int *out)
{
    __shared__ int s[64];
    int tid = threadIdx.x;
    int x = tid / 2;
    x = blockDim.x - 1 - tid;
    s[x] = tid;
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[tid];
}

__global__ void halved(int *out)
{
    __shared__ int s[64];
    int tid = threadIdx.x;
    int x = tid;
    x = tid / 2;
    s[x] = tid; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[tid];
}
