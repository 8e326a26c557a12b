// 2-D five-point stencil with an 18 x 18 shared tile for 16 x 16 threads:
// the interior plus one-cell halos loaded by the border threads.  The input
// is padded by one cell on each side (row length width + 2).  All loads hit
// disjoint cells; the barrier is needed.
// syncscope-args: --block-dim 16,16 --grid-dim 8,8
// expect-kernel: stencil_2d verified

__global__ void stencil_2d(float *out, const float *in)
{
    __shared__ float t[18][18];
    const int width = gridDim.x * 16;
    const int pitch = width + 2;
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
    int p = (y + 1) * pitch + (x + 1);

    t[ty][tx] = in[p];
    if (threadIdx.x == 0)
        t[ty][0] = in[p - 1];
    if (threadIdx.x == 15)
        t[ty][17] = in[p + 1];
    if (threadIdx.y == 0)
        t[0][tx] = in[p - pitch];
    if (threadIdx.y == 15)
        t[17][tx] = in[p + pitch];
    __syncthreads();

    out[y * width + x] = 0.2f * (t[ty][tx] + t[ty][tx - 1] + t[ty][tx + 1] +
                                 t[ty - 1][tx] + t[ty + 1][tx]);
}
