// The CUDA SDK reduction with sequential addressing (the version PUG-para's
// n-thread experiments scale): in step s the first s threads add the
// element s to their right.  The block size is symbolic but one-dimensional
// (the __requires), the grid is symbolic but one-dimensional too.
// expect-kernel: reduce_sequential verified

__global__ void reduce_sequential(int *g_odata, const int *g_idata, unsigned int n)
{
    __requires(blockDim.y == 1 && blockDim.z == 1);
    __requires(gridDim.y == 1 && gridDim.z == 1);
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0)
        g_odata[blockIdx.x] = sdata[0];
}
