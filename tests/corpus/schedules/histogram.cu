// Issue 15: histograms are order-independent. Integer `atomicAdd`s
// commute and their results are discarded, so every order of the
// increments (per-block bins in shared memory, merged into the global
// histogram after a barrier, inside a grid-stride loop) ends with the
// same counts: no `schedule-dependent` finding with `--deterministic`.
// syncscope-args: --deterministic --block-dim 256 --grid-dim 16
// expect-kernel: histogram_shared_bins verified
// expect-kernel: histogram_global verified

#define BINS 256

__global__ void histogram_shared_bins(const unsigned char *in, int n, unsigned int *hist)
{
    __shared__ unsigned int bins[BINS];
    bins[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[in[i]], 1u);
    __syncthreads();
    atomicAdd(&hist[threadIdx.x], bins[threadIdx.x]);
}

__global__ void histogram_global(const unsigned char *in, int n, unsigned int *hist)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&hist[in[i]], 1u);
}
