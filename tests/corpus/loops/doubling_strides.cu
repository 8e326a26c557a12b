// Item 6 of issue 19: strides that double (`s *= 2`, `s <<= 1`) and a
// `while` loop that moves an index and a stride together. The interleaved
// reduction (index 2*s*t) and the up-sweep with `idx = 2*t` doubling with
// the stride are verified: in step s the written cells are multiples of 2s
// and the read ones are s past them. The racy twin starts the index at `t`
// instead of `2*t`, so in the first step thread t writes sdata[t] while
// thread t-1 reads it.
// syncscope-args: --block-dim 128 --grid-dim 64
// expect-kernel: interleaved_sum verified
// expect-kernel: upsweep_index_stride verified
// expect-kernel: upsweep_index_stride_racy racy

#define BLOCK 128

__global__ void interleaved_sum(int *out, const int *in)
{
    __shared__ int sdata[BLOCK];
    unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        unsigned i = 2 * s * t;
        if (i < blockDim.x)
            sdata[i] += sdata[i + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}

__global__ void upsweep_index_stride(int *out, const int *in)
{
    __shared__ int sdata[BLOCK];
    unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    unsigned stride = 1, idx = 2 * t;
    while (stride < BLOCK) {
        if (idx + stride < BLOCK)
            sdata[idx] += sdata[idx + stride];
        __syncthreads();
        stride <<= 1;
        idx <<= 1;
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}

__global__ void upsweep_index_stride_racy(int *out, const int *in)
{
    __shared__ int sdata[BLOCK];
    unsigned t = threadIdx.x;
    sdata[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    unsigned stride = 1, idx = t;
    while (stride < BLOCK) {
        if (idx + stride < BLOCK)
            sdata[idx] += sdata[idx + stride]; //~ data-race
        __syncthreads();
        stride <<= 1;
        idx <<= 1;
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}
