// `extern __shared__` arrays of different types over the one dynamic
// buffer: they alias, with offsets in bytes.  A file-scope `__shared__`
// array is one per block, like one declared in the kernel.
//  * split_buffer:        the SDK way: a float region and an int region carved
//                         out of the buffer by pointer arithmetic, each thread
//                         writing its own cells: verified.
//  * double_over_float:   `double d[]` and `float f[]` name the same bytes:
//                         thread t writes bytes 8t..8t+7, thread t reads
//                         float 2t+1 (bytes 8t+4..8t+7, its own): verified.
//  * double_over_float_racy: thread t reads float 2t+2, the first half of
//                         thread t+1's double: racy.
//  * file_scope_tile:     a file-scope `__shared__` tile, barrier between the
//                         writes and the reads: verified (blocks do not share it).
//  * file_scope_tile_racy: the same without the barrier: racy.
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: split_buffer verified
// expect-kernel: double_over_float verified
// expect-kernel: double_over_float_racy racy
// expect-kernel: file_scope_tile verified
// expect-kernel: file_scope_tile_racy racy

#define THREADS 128

__global__ void split_buffer(const float *vals, const int *keys, float *out, int *out_keys)
{
    extern __shared__ float smem[];
    float *s_vals = smem;
    int *s_keys = (int *)&s_vals[THREADS];
    int t = threadIdx.x;
    s_vals[t] = vals[blockIdx.x * THREADS + t];
    s_keys[t] = keys[blockIdx.x * THREADS + t];
    __syncthreads();
    out[blockIdx.x * THREADS + t] = s_vals[THREADS - 1 - t];
    out_keys[blockIdx.x * THREADS + t] = s_keys[THREADS - 1 - t];
}

__global__ void double_over_float(float *out)
{
    extern __shared__ double d_buf[];
    extern __shared__ float f_buf[];
    d_buf[threadIdx.x] = 1.0;
    out[blockIdx.x * THREADS + threadIdx.x] = f_buf[2 * threadIdx.x + 1];
}

__global__ void double_over_float_racy(float *out)
{
    extern __shared__ double d_buf[];
    extern __shared__ float f_buf[];
    d_buf[threadIdx.x] = 1.0; //~ data-race
    out[blockIdx.x * THREADS + threadIdx.x] = f_buf[2 * threadIdx.x + 2]; //~ data-race
}

__shared__ float g_tile[THREADS];

__global__ void file_scope_tile(const float *in, float *out)
{
    g_tile[threadIdx.x] = in[blockIdx.x * THREADS + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * THREADS + threadIdx.x] = g_tile[THREADS - 1 - threadIdx.x];
}

__global__ void file_scope_tile_racy(const float *in, float *out)
{
    g_tile[threadIdx.x] = in[blockIdx.x * THREADS + threadIdx.x]; //~ data-race
    out[blockIdx.x * THREADS + threadIdx.x] = g_tile[THREADS - 1 - threadIdx.x]; //~ data-race
}
