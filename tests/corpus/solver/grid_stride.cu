// Must-show kernel 2 of issue 20: a grid-stride loop with symbolic launch
// sizes. Each thread visits the residue class of its global id modulo the
// grid's thread count, so two threads meet only if their global ids are
// equal: verified. `stride_too_small` strides by the block size only, so
// thread t of block 1 revisits what thread t of block 0 wrote, with its own
// block's number: racy.
// expect-kernel: copy_grid_stride verified
// expect-kernel: stride_too_small racy

__global__ void copy_grid_stride(int n, const float *in, float *out)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = 2.0f * in[i];
}

__global__ void stride_too_small(int n, float *out)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x)
        out[i] = (float)blockIdx.x; //~ data-race
}
