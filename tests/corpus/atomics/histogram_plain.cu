// histogram_shared.cu with the counting done by a plain `++`: a read and a
// write of bins[v] where v comes from the data, so two threads with equal
// data values read and write the same bin unordered.
// syncscope-args: --block-dim 256 --grid-dim 32 -D NUM_BINS=256
// expect-kernel: histogram_plain_increment racy

__global__ void histogram_plain_increment(unsigned int *hist,
                                          const unsigned char *data, int n)
{
    __shared__ unsigned int bins[NUM_BINS];
    int tid = threadIdx.x;

    bins[tid] = 0;
    __syncthreads();

    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
        bins[data[i]]++; //~ data-race
    __syncthreads();

    atomicAdd(&hist[tid], bins[tid]);
}
