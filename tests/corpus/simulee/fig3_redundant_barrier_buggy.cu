// Simulee, Figure 3 (an arrayfire homography kernel, before the fix): the
// block is one-dimensional and each thread only ever touches s_median[tid]
// and s_idx[tid] before the second barrier, so the first barrier orders
// nothing: removing it creates no race.  The second barrier and the one in
// the reduction loop are needed.
// syncscope-args: --block-dim 256 --grid-dim 8
// expect-kernel: compute_median_buggy verified

__global__ void compute_median_buggy(float *median_out, int *idx_out,
                                     const float *err, int iterations)
{
    __shared__ float s_median[256];
    __shared__ int s_idx[256];
    const unsigned tid = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;

    s_median[tid] = 3.4e38f;
    s_idx[tid] = 0;
    __syncthreads(); //~ redundant-barrier

    if (i < iterations) {
        float m = err[i];
        s_idx[tid] = i;
        s_median[tid] = m;
    }
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            if (s_median[tid + s] < s_median[tid]) {
                s_median[tid] = s_median[tid + s];
                s_idx[tid] = s_idx[tid + s];
            }
        }
        __syncthreads();
    }

    if (tid == 0) {
        median_out[blockIdx.x] = s_median[0];
        idx_out[blockIdx.x] = s_idx[0];
    }
}
