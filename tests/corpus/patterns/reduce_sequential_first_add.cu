// Tree reduction, sequential addressing, with the first add done while
// loading (each thread loads two elements) and the loop stopping at one
// element per block.
// syncscope-args: --block-dim 128 --grid-dim 64
// expect-kernel: reduce_first_add verified

__global__ void reduce_first_add(float *out, const float *in, unsigned int n)
{
    __shared__ float sdata[128];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;

    float v = i < n ? in[i] : 0.0f;
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] = v = v + sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0)
        out[blockIdx.x] = v;
}
