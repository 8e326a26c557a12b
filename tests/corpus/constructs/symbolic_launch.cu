// Without launch sizes the block and grid are symbolic in all three
// dimensions.  `x_only_index` indexes shared memory by threadIdx.x alone, so
// two threads of one block that differ only in threadIdx.y (or .z) write the
// same cell (racy).  `linear_index` linearises all three dimensions of the
// thread index, which is injective for every block shape (verified).
// expect-kernel: x_only_index racy
// expect-kernel: linear_index verified

__global__ void x_only_index(int *flags)
{
    __shared__ int s[1024];
    s[threadIdx.x] = 1; //~ data-race
}

__global__ void linear_index(int *flags)
{
    __shared__ int s[1024];
    int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    s[t] = 1;
}
