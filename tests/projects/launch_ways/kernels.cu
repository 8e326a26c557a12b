// Kernels that host.cu runs in more ways than one `<<<…>>>` site shows.
// Each `pack_*` kernel is race-free with at most 128 threads a block (its
// visible `<<<…>>>` launch) and racy with 256 (threads t and t + 128 write
// one cell): a launch the checker does not understand, or reads wrongly,
// must not lend it the visible launch's size. Each twin stays verified.
// expect-kernel: pack_runtime racy
// expect-kernel: sum_runtime verified
// expect-kernel: pack_helper racy
// expect-kernel: sum_helper verified
// expect-kernel: pack_attr verified
// expect-kernel: pack_pointer verified
// expect-kernel: quarter_pointer racy
// expect-kernel: pack_table racy
// expect-kernel: sum_table verified
// expect-kernel: pack_fields racy
// expect-kernel: wrap_fields verified
// expect-kernel: row_wrap verified
// expect-kernel: row_wrap_wide racy
// expect-kernel: pack_loop racy
// expect-kernel: pack_loop_grid verified
#define HALF 128

// Also launched through cudaLaunchKernel with 256 threads (read as a
// launch of its own: the sizes are the call's arguments).
__global__ void pack_runtime(float *out, const float *in)
{
    __shared__ float s[HALF];
    s[threadIdx.x % HALF] = in[blockIdx.x * blockDim.x + threadIdx.x]; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[HALF - 1 - threadIdx.x % HALF];
}

// Also launched through cudaLaunchKernel; race-free under any launch.
__global__ void sum_runtime(float *total, const float *in)
{
    __shared__ float s[HALF];
    bool lead = threadIdx.x < HALF && threadIdx.y == 0 && threadIdx.z == 0;
    if (lead)
        s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (lead)
        atomicAdd(total, s[HALF - 1 - threadIdx.x]);
}

// Also passed to a launch helper that launches whatever it is given: not
// understood, so checked for any launch.
__global__ void pack_helper(float *out, const float *in)
{
    __shared__ float s[HALF];
    s[threadIdx.x % HALF] = in[blockIdx.x * blockDim.x + threadIdx.x]; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[HALF - 1 - threadIdx.x % HALF];
}

// Passed to the same helper; race-free under any launch.
__global__ void sum_helper(float *total, const float *in)
{
    __shared__ float s[HALF];
    bool lead = threadIdx.x < HALF && threadIdx.y == 0 && threadIdx.z == 0;
    if (lead)
        s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (lead)
        atomicAdd(total, s[HALF - 1 - threadIdx.x]);
}

// Launched only through a pointer set to it or to quarter_pointer, with
// 128 threads: race-free under that launch.
__global__ void pack_pointer(float *out, const float *in)
{
    __shared__ float s[HALF];
    s[threadIdx.x % HALF] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[HALF - 1 - threadIdx.x % HALF];
}

// The same pointer's other kernel: 64 cells for 128 threads, racy (its own
// `<<<…>>>` launch of 64 threads is race-free).
__global__ void quarter_pointer(float *out, const float *in)
{
    __shared__ float s[HALF / 2];
    s[threadIdx.x % (HALF / 2)] = in[blockIdx.x * blockDim.x + threadIdx.x]; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[HALF / 2 - 1 - threadIdx.x % (HALF / 2)];
}

// Its attributes are set before its one launch: that runs nothing, so the
// launch's 128 threads are all there is.
__global__ void pack_attr(float *out, const float *in)
{
    __shared__ float s[HALF];
    s[threadIdx.x % HALF] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[HALF - 1 - threadIdx.x % HALF];
}

// Also in a table of kernels launched with 256 threads.
__global__ void pack_table(float *out, const float *in)
{
    __shared__ float s[HALF];
    s[threadIdx.x % HALF] = in[blockIdx.x * blockDim.x + threadIdx.x]; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[HALF - 1 - threadIdx.x % HALF];
}

// In the same table; race-free under any launch.
__global__ void sum_table(float *total, const float *in)
{
    __shared__ float s[HALF];
    bool lead = threadIdx.x < HALF && threadIdx.y == 0 && threadIdx.z == 0;
    if (lead)
        s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (lead)
        atomicAdd(total, s[HALF - 1 - threadIdx.x]);
}

// Its block is `dim3 block; block.x = 256;`: 256 threads, not one.
__global__ void pack_fields(float *out, const float *in)
{
    __shared__ float s[HALF];
    s[threadIdx.x % HALF] = in[blockIdx.x * blockDim.x + threadIdx.x]; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[HALF - 1 - threadIdx.x % HALF];
}

// `grid.x = n / HALF; block.x = HALF;`: every i is below n, so `i % n`
// is i (racy for a grid or block the fields do not give).
__global__ void wrap_fields(float *out, const float *in, int n)
{
    int i = blockIdx.x * HALF + threadIdx.x;
    out[i % n] = in[i];
}

// `dim3 threads(bs); dim3 grid(dims.x / threads.x);` with `dims.x` passed
// for w: gridDim.x * blockDim.x <= w, so `i % w` is i.
__global__ void row_wrap(float *out, const float *in, int w)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i % w] = in[i];
}

// The same with one block more than fits: i reaches w and wraps onto 0.
__global__ void row_wrap_wide(float *out, const float *in, int w)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i % w] = in[i]; //~ data-race
}

// Launched in a loop that doubles its block size: 64, 128, then 256.
__global__ void pack_loop(float *out, const float *in)
{
    __shared__ float s[HALF];
    s[threadIdx.x % HALF] = in[blockIdx.x * blockDim.x + threadIdx.x]; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[HALF - 1 - threadIdx.x % HALF];
}

// Launched in a loop whose grid grows; the block stays 128 threads.
__global__ void pack_loop_grid(float *out, const float *in)
{
    __shared__ float s[HALF];
    s[threadIdx.x % HALF] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[HALF - 1 - threadIdx.x % HALF];
}
