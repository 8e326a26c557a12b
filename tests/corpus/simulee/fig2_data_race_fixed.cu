// Simulee, Figure 2 after the fix: a __syncthreads() between the stores into
// the shared reduction buffers and the block-wide min reduction.  Every
// barrier is needed.
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: smo_select_fixed verified

__device__ int block_min_index(float *vals, int *idx)
{
    int tid = threadIdx.x;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s && vals[tid + s] < vals[tid]) {
            vals[tid] = vals[tid + s];
            idx[tid] = idx[tid + s];
        }
        __syncthreads();
    }
    return idx[0];
}

__global__ void smo_select_fixed(int *selected, float *gap, const float *f,
                                 const int *y, const float *alpha, float C)
{
    __shared__ float f_val2reduce[128];
    __shared__ int f_idx2reduce[128];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;

    if (y[i] > 0 && alpha[i] < C)
        f_val2reduce[tid] = f[i];
    else
        f_val2reduce[tid] = 1e30f;
    f_idx2reduce[tid] = i;
    __syncthreads();
    int ip = block_min_index(f_val2reduce, f_idx2reduce);
    float up_value = f_val2reduce[0];
    if (tid == 0) {
        selected[blockIdx.x] = ip;
        gap[blockIdx.x] = up_value;
    }
}
