// __requires on the launch itself.  Each thread writes s[tid] and
// s[tid + 128]; with at most 128 threads per 1-D block the halves are
// disjoint.  No launch sizes are given on the command line: without the
// __requires the symbolic block may have more than 128 threads (thread 0 and
// thread 128 collide) or several rows (threads (0,0) and (0,1) collide, on
// s and on the output cell, which also blocks (0,0) and (0,1) share).
// expect-kernel: requires_blockdim verified
// expect-kernel: requires_missing racy

__global__ void requires_blockdim(int *out)
{
    __requires(blockDim.x == 128);
    __requires(blockDim.y == 1);
    __requires(blockDim.z == 1);
    __requires(gridDim.y == 1 && gridDim.z == 1);
    __shared__ int s[256];
    int tid = threadIdx.x;
    s[tid] = 1;
    s[tid + 128] = 2;
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[255 - tid] + s[127 - tid];
}

__global__ void requires_missing(int *out)
{
    __shared__ int s[256];
    int tid = threadIdx.x;
    s[tid] = 1; //~ data-race
    s[tid + 128] = 2; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[255 - tid] + s[127 - tid];
}
