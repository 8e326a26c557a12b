// Staged copies through shared memory with per-thread offsets, the shapes
// the exact offset pre-check decides without the solver: every index is
// a * threadIdx.x + c with the same a.  Two distinct threads t1 != t2 of a
// block meet only if a * (t1 - t2) = c2 - c1 has a solution with
// 0 < |t1 - t2| < blockDim.x.  The racy kernels are the near misses: an
// offset of 1 (neighbours), an odd offset with a stride of 1, and an
// offset of 255 < 256 threads.
// syncscope-args: --block-dim 256 --grid-dim 8
// expect-kernel: staged_rows verified
// expect-kernel: even_odd_lanes verified
// expect-kernel: neighbour_read racy
// expect-kernel: offset_below_block racy
// expect-kernel: stride_two_collides racy

#define T 256

__global__ void staged_rows(float *out, const float *in)
{
    __shared__ float s[4 * T];
    int tid = threadIdx.x;
    s[tid] = in[tid];
    s[tid + T] = in[tid + T];
    s[tid + 2 * T] = s[tid] + s[tid + T];
    s[tid + 3 * T] = s[tid + 2 * T] * 2.0f;
    out[blockIdx.x * T + tid] = s[tid + 3 * T];
}

__global__ void even_odd_lanes(float *out, const float *in)
{
    __shared__ float s[2 * T];
    int tid = threadIdx.x;
    s[2 * tid] = in[tid];
    s[2 * tid + 1] = -in[tid];
    out[blockIdx.x * T + tid] = s[2 * tid] + s[2 * tid + 1];
}

__global__ void neighbour_read(float *out, const float *in)
{
    __shared__ float s[T + 1];
    int tid = threadIdx.x;
    s[tid] = in[tid];                           //~ data-race
    out[blockIdx.x * T + tid] = s[tid + 1];     //~ data-race
}

__global__ void offset_below_block(float *out, const float *in)
{
    __shared__ float s[2 * T];
    int tid = threadIdx.x;
    s[tid] = in[tid];                           //~ data-race
    s[tid + 255] = 0.0f;                        //~ data-race
    out[blockIdx.x * T + tid] = s[tid];         //~ data-race
}

__global__ void stride_two_collides(float *out, const float *in)
{
    __shared__ float s[2 * T + 2];
    int tid = threadIdx.x;
    s[2 * tid] = in[tid];                       //~ data-race
    s[2 * tid + 2] = 1.0f;                      //~ data-race
    out[blockIdx.x * T + tid] = s[2 * tid + 1];
}
