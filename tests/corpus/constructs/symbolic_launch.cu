// Without launch sizes the block and grid are symbolic, except that a
// dimension the kernel never mentions (no threadIdx.y, blockDim.y, ...) is
// taken to be 1: a kernel written for 1-D blocks is launched with them.
// `x_only_index` indexes shared memory by threadIdx.x alone and mentions no
// other dimension, so it is verified for every 1-D block size.  `linear_index` linearises all three dimensions of the
// thread index, which is injective for every block shape (verified).
// expect-kernel: x_only_index verified
// expect-kernel: linear_index verified

__global__ void x_only_index(int *flags)
{
    __shared__ int s[1024];
    s[threadIdx.x] = 1;
}

__global__ void linear_index(int *flags)
{
    __shared__ int s[1024];
    int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    s[t] = 1;
}
