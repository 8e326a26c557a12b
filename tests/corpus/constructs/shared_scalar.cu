// A __shared__ scalar written by thread 0 and read by everyone.  With the
// barrier the read waits for the write (verified); without it any other
// thread may read `flag` while thread 0 writes it (racy).
// syncscope-args: --block-dim 64 --grid-dim 16
// expect-kernel: broadcast_with_barrier verified
// expect-kernel: broadcast_without_barrier racy

__global__ void broadcast_with_barrier(int *out, const int *in)
{
    __shared__ int flag;
    int gid = blockIdx.x * blockDim.x + threadIdx.x;

    if (threadIdx.x == 0)
        flag = in[blockIdx.x];
    __syncthreads();
    out[gid] = flag;
}

__global__ void broadcast_without_barrier(int *out, const int *in)
{
    __shared__ int flag;
    int gid = blockIdx.x * blockDim.x + threadIdx.x;

    if (threadIdx.x == 0)
        flag = in[blockIdx.x]; //~ data-race
    out[gid] = flag; //~ data-race
}
