// The optimised reduction PUG-para compares with the interleaved one
// (reduction_interleaved.cu): the same tree, with the slow modulo test
// replaced by a strided index (step s: thread t adds cell 2*s*t + s into
// cell 2*s*t when that index is in the block). Its parameters are named
// differently from the interleaved kernel's: `syncscope equiv` matches
// them by position.
// syncscope-args: --block-dim 256 --grid-dim 64
// expect-kernel: reduce_strided verified

__global__ void reduce_strided(int *out, const int *in)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = in[i];
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }

    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
