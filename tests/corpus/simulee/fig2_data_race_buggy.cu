// Simulee, Figure 2 (a thundersvm SMO kernel, before the fix): every thread
// stores its candidate value into shared f_val2reduce (and its index into
// f_idx2reduce), then a block-wide min reduction in a __device__ helper reads
// them -- without a barrier in between.  Thread t < s reads vals[t + s]
// while thread t + s may still be writing it.
// The helper is inlined; its own accesses are race-free, so only the
// caller's writes are marked (each race pairs one of them with a read in
// block_min_index).
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: smo_select_buggy racy

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

__global__ void smo_select_buggy(int *selected, float *gap, const float *f,
                                 const int *y, const float *alpha, float C)
{
    __shared__ float f_val2reduce[128];
    __shared__ int f_idx2reduce[128];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;

    if (y[i] > 0 && alpha[i] < C)
        f_val2reduce[tid] = f[i]; //~ data-race
    else
        f_val2reduce[tid] = 1e30f; //~ data-race
    f_idx2reduce[tid] = i; //~ data-race
    // the fix adds __syncthreads() here
    int ip = block_min_index(f_val2reduce, f_idx2reduce);
    float up_value = f_val2reduce[0];
    if (tid == 0) {
        selected[blockIdx.x] = ip;
        gap[blockIdx.x] = up_value;
    }
}
