// Tree reduction, interleaved addressing with a strided index (the second
// step of the classic optimisation series): in step s thread t adds cell
// 2st + s into cell 2st.  Written cells are multiples of 2s, read cells odd
// multiples of s -- disjoint within a step; steps are separated by the
// barrier.
// syncscope-args: --block-dim 256 --grid-dim 64
// expect-kernel: reduce_strided_index verified

__global__ void reduce_strided_index(float *out, const float *in)
{
    __shared__ float sdata[256];
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
