// Item 2 of issue 19: threads that write the same value to one location
// race only benignly (whichever write lands last, the value is the same):
// a `benign-race` hint, and the kernel is verified. The value must be
// provably equal for the two threads: a constant (`s_found = 1`), or the
// same expression of values every thread of the block shares
// (`s_len = n * gridDim.x + blockIdx.x`, the global `*done = 1` written by
// every block). Writing a value that differs between the threads
// (`s_found = threadIdx.x`, the first match's index) stays a data race.
// syncscope-args: --block-dim 256 --grid-dim 32
// expect-kernel: any_negative verified
// expect-kernel: broadcast_length verified
// expect-kernel: mark_done verified
// expect-kernel: first_negative_index racy

#define BLOCK 256
#define FOUND 1

template <typename T>
__device__ bool is_negative(T v)
{
    return v < 0;
}

// Sets a per-block flag when any element of the tile is negative.
template <typename T>
__global__ void any_negative(int *flags, const T *in)
{
    __shared__ int s_found;
    if (threadIdx.x == 0)
        s_found = 0;
    __syncthreads();
    if (is_negative(in[blockIdx.x * BLOCK + threadIdx.x]))
        s_found = FOUND; //~ benign-race
    __syncthreads();
    if (threadIdx.x == 0)
        flags[blockIdx.x] = s_found;
}

// Every thread stores the block's length; one barrier, then all read it.
__global__ void broadcast_length(int *out, int n)
{
    __shared__ int s_len;
    s_len = n * gridDim.x + blockIdx.x; //~ benign-race
    __syncthreads();
    out[blockIdx.x * BLOCK + threadIdx.x] = s_len - threadIdx.x;
}

// Every thread of every block raises the same global flag.
__global__ void mark_done(int *done, float *out, const float *in)
{
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    out[i] = 2.0f * in[i];
    *done = 1; //~ benign-race
}

// The index of a negative element: different threads write different
// indices, so which one survives depends on the schedule.
__global__ void first_negative_index(int *where, const float *in)
{
    __shared__ int s_where;
    if (threadIdx.x == 0)
        s_where = -1;
    __syncthreads();
    if (in[blockIdx.x * BLOCK + threadIdx.x] < 0.0f)
        s_where = threadIdx.x; //~ data-race
    __syncthreads();
    if (threadIdx.x == 0)
        where[blockIdx.x] = s_where;
}

void launch_any_negative(int *flags, const float *in, int blocks)
{
    any_negative<float><<<blocks, BLOCK>>>(flags, in);
}
