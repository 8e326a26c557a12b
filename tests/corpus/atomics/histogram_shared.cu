// Histogram with per-block bins in shared memory: clear the bins, count with
// shared atomics (bin indices come from the data, so they collide freely --
// which is fine for atomics), then merge each bin into the global histogram
// with a global atomic.  Both barriers are needed: the first orders the
// plain clear before the atomics, the second orders the atomics before the
// plain reads of the merge.
// syncscope-args: --block-dim 256 --grid-dim 32 -D NUM_BINS=256
// expect-kernel: histogram_shared_atomics verified

__global__ void histogram_shared_atomics(unsigned int *hist,
                                         const unsigned char *data, int n)
{
    __shared__ unsigned int bins[NUM_BINS];
    int tid = threadIdx.x;

    bins[tid] = 0;
    __syncthreads();

    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[data[i]], 1u);
    __syncthreads();

    atomicAdd(&hist[tid], bins[tid]);
}
