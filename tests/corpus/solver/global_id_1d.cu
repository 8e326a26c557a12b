// Must-show kernel 1 of issue 20: the 1-D global id with symbolic launch
// sizes. `blockIdx.x * blockDim.x + threadIdx.x` is injective over the grid
// (b1*D + t1 == b2*D + t2 with 0 <= t1,t2 < D forces b1 == b2, t1 == t2), so
// no two threads write the same element: verified for every launch.
// `shifted_by_one` reads its neighbour's element, which another thread
// writes (the last thread of one block and the first of the next): racy.
// expect-kernel: saxpy verified
// expect-kernel: shifted_by_one racy

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

__global__ void shifted_by_one(int n, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1 < n)
        y[i] = y[i + 1] * 0.5f; //~ data-race
}
