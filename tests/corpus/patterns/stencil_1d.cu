// 1-D stencil of radius RADIUS with a shared tile and halo: every thread
// loads its element, the first RADIUS threads also load the left and right
// halos.  The loads cover disjoint cells; the barrier is needed.
// syncscope-args: --block-dim 256 --grid-dim 64 -D RADIUS=3
// expect-kernel: stencil_1d verified

__global__ void stencil_1d(float *out, const float *in)
{
    __shared__ float tile[256 + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;

    tile[l] = in[g + RADIUS];
    if (threadIdx.x < RADIUS) {
        tile[l - RADIUS] = in[g];
        tile[l + blockDim.x] = in[g + RADIUS + blockDim.x];
    }
    __syncthreads();

    float sum = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; k++)
        sum += tile[l + k];
    out[g] = sum;
}
