// A grid-wide event counter: every thread of every block increments the same
// global cell with atomicAdd.  Atomic accesses never race with each other.
// No launch sizes are given: the verdict holds for any grid and block.
// expect-kernel: count_positive verified

__global__ void count_positive(unsigned int *counter, const float *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && data[i] > 0.0f)
        atomicAdd(counter, 1u);
}
