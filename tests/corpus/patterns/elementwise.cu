// Element-wise kernels without shared memory: vector add, SAXPY with a
// bounds check, and a grid-stride loop (each index i = gid + k * stride is
// owned by one thread of the grid).  Launch sizes are fixed to a 1-D grid of
// 1-D blocks.
// syncscope-args: --block-dim 256 --grid-dim 120
// expect-kernel: vector_add verified
// expect-kernel: saxpy verified
// expect-kernel: scale_grid_stride verified

__global__ void vector_add(float *c, const float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

__global__ void saxpy(int n, float alpha, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = alpha * x[i] + y[i];
}

__global__ void scale_grid_stride(float *out, const float *in, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = in[i] * 2.0f;
}
