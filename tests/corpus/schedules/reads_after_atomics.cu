// Issue 30: reads of memory other threads wrote. After the barrier that
// orders the writes, a thread reads what the atomics left: the run gives
// such a read the cell's content at that point, so a value that depends
// on the order flows on into global memory. Each block elects the thread
// whose `atomicCAS` comes first; every thread then copies the elected
// index out. The twin elects the largest index with `atomicMax` (one
// family: any order ends the same) and copies it the same way.
// syncscope-args: --deterministic --block-dim 16 --grid-dim 2
// expect-kernel: copy_elected verified
// expect-kernel: copy_largest verified
// expect-kernel: forward_neighbour verified

__global__ void copy_elected(int *out)
{
    __shared__ int elected;
    if (threadIdx.x == 0)
        elected = -1;
    __syncthreads();
    atomicCAS(&elected, -1, (int)threadIdx.x); //~ schedule-dependent
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = elected;
}

__global__ void copy_largest(int *out)
{
    __shared__ int largest;
    if (threadIdx.x == 0)
        largest = -1;
    __syncthreads();
    atomicMax(&largest, (int)threadIdx.x);
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = largest;
}

// A value read from memory other threads wrote before the barrier, given
// to an exchange: the threads read different neighbours, so the last
// exchange decides what stays.
__global__ void forward_neighbour(const int *in, int *data, int *last)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    data[i] = in[i] * 2;
    __syncthreads();
    int v = data[blockIdx.x * blockDim.x + (threadIdx.x + 1) % blockDim.x];
    atomicExch(&last[blockIdx.x], v); //~ schedule-dependent
}
