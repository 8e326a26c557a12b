// The CUDA SDK reduction PUG-para checks (first version, interleaved
// addressing with a modulo test): in step s the threads whose id is a
// multiple of 2s add the element s to their right.  Within a step the
// written cells (multiples of 2s) and the read cells (odd multiples of s)
// are disjoint; consecutive steps are separated by the barrier.
// syncscope-args: --block-dim 256 --grid-dim 64
// expect-kernel: reduce_interleaved verified

__global__ void reduce_interleaved(int *g_odata, const int *g_idata)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = g_idata[i];
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0)
        g_odata[blockIdx.x] = sdata[0];
}
