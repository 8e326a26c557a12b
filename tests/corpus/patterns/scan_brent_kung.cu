// Brent-Kung inclusive scan of 2 * blockDim.x elements, written with a
// single loop variable per phase: in the reduction phase thread t updates
// cell (t + 1) * 2 * stride - 1 from the cell stride to its left; in the
// distribution phase it pushes that cell stride to the right.  Different
// threads' cells never meet within a step.
// syncscope-args: --block-dim 128 --grid-dim 16 -D N=256
// expect-kernel: scan_brent_kung verified

__global__ void scan_brent_kung(float *out, const float *in)
{
    __shared__ float xy[N];
    int tid = threadIdx.x;
    int base = blockIdx.x * N;

    xy[tid] = in[base + tid];
    xy[tid + N / 2] = in[base + tid + N / 2];
    __syncthreads();

    for (int stride = 1; stride <= N / 2; stride *= 2) {
        int index = (tid + 1) * 2 * stride - 1;
        if (index < N)
            xy[index] += xy[index - stride];
        __syncthreads();
    }

    for (int stride = N / 4; stride > 0; stride /= 2) {
        int index = (tid + 1) * 2 * stride - 1;
        if (index + stride < N)
            xy[index + stride] += xy[index];
        __syncthreads();
    }

    out[base + tid] = xy[tid];
    out[base + tid + N / 2] = xy[tid + N / 2];
}
