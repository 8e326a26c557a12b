// Two arrays carved from one extern __shared__ buffer.  In the first kernel
// `b` starts blockDim.x elements after `a`, so a[tid] and b[tid] never meet
// (verified).  In the second `b` starts only blockDim.x / 2 elements after
// `a`: thread t + blockDim.x/2 writes a[t + blockDim.x/2] while thread t
// writes b[t], the same cell (racy).
// syncscope-args: --block-dim 128 --grid-dim 32
// expect-kernel: carve_disjoint verified
// expect-kernel: carve_overlap racy

__global__ void carve_disjoint(float *out, const float *x, const float *y)
{
    extern __shared__ float buf[];
    float *a = buf;
    float *b = buf + blockDim.x;
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    a[tid] = x[gid];
    b[tid] = y[gid];
    __syncthreads();
    out[gid] = a[tid] * b[blockDim.x - 1 - tid];
}

__global__ void carve_overlap(float *out, const float *x, const float *y)
{
    extern __shared__ float buf[];
    float *a = buf;
    float *b = buf + blockDim.x / 2;
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    a[tid] = x[gid]; //~ data-race
    b[tid] = y[gid]; //~ data-race
    __syncthreads();
    out[gid] = a[tid] * b[blockDim.x - 1 - tid];
}
