// Must-show kernel 6 of issue 20: a missing barrier between a shared write
// and a neighbour's read, symbolic launch sizes. Thread t reads the cell
// thread t + 1 writes, with nothing in between: racy, with a witness of two
// adjacent threads. `with_barrier` is the fixed version: verified.
// expect-kernel: neighbour_sum racy
// expect-kernel: with_barrier verified

__global__ void neighbour_sum(const float *in, float *out, int n)
{
    extern __shared__ float tile[];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    tile[tid] = in[i]; //~ data-race
    if (tid + 1 < blockDim.x)
        out[i] = tile[tid] + tile[tid + 1]; //~ data-race
}

__global__ void with_barrier(const float *in, float *out, int n)
{
    extern __shared__ float tile[];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    tile[tid] = in[i];
    __syncthreads();
    if (tid + 1 < blockDim.x)
        out[i] = tile[tid] + tile[tid + 1];
}
