// The SDK idiom for dynamic shared memory in templates: a struct whose
// conversion operator returns the `extern __shared__` buffer, used as
// `T *sdata = SharedMemory<T>();` (with a specialisation for double, as the
// SDK writes it).  The call is the conversion: `sdata` points into the
// block's dynamic buffer.
//  * block_sum:      tree reduction with a barrier after every step: verified.
//  * block_sum_racy: the barrier after the load is missing: racy.
// syncscope-args: --block-dim 256 --grid-dim 64
// expect-kernel: block_sum verified
// expect-kernel: block_sum_racy racy

template <class T>
struct SharedMemory {
    __device__ inline operator T *()
    {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
    __device__ inline operator const T *() const
    {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
};

template <>
struct SharedMemory<double> {
    __device__ inline operator double *()
    {
        extern __shared__ double __smem_d[];
        return (double *)__smem_d;
    }
};

template <class T>
__global__ void block_sum(const T *g_in, T *g_out, unsigned int n)
{
    T *sdata = SharedMemory<T>();
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_in[i] : T(0);
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        g_out[blockIdx.x] = sdata[0];
}

template <class T>
__global__ void block_sum_racy(const T *g_in, T *g_out, unsigned int n)
{
    T *sdata = SharedMemory<T>();
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_in[i] : T(0); //~ data-race
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s]; //~ data-race
        __syncthreads();
    }
    if (tid == 0)
        g_out[blockIdx.x] = sdata[0];
}

void launch_sums(const float *d_in, float *d_out, unsigned int n)
{
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    block_sum<float><<<blocks, threads, threads * sizeof(float)>>>(d_in, d_out, n);
    block_sum_racy<float><<<blocks, threads, threads * sizeof(float)>>>(d_in, d_out, n);
}
