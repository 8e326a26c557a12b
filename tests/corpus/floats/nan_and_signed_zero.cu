// Issue 26 hole 2: floating-point comparisons follow IEEE semantics or are
// unknown, never integer algebra. `v != v` is the NaN test (true for a NaN),
// `v - v` and `v * 0` are NaN for an infinity, `v + 0` turns -0 into +0 and
// keeps a NaN: code under such a test is live, and these kernels race when
// two threads can take it. What holds for every value stays known: `v < v`
// is false even for a NaN, and `v != v` and `v == v` exclude each other. A
// comparison of block-uniform values stays uniform (no divergence).
// syncscope-args: --block-dim 64 --grid-dim 2
// expect-kernel: nan_test racy
// expect-kernel: not_equal_to_itself racy
// expect-kernel: self_difference racy
// expect-kernel: times_zero racy
// expect-kernel: plus_zero racy
// expect-kernel: double_nan_test racy
// expect-kernel: less_than_itself verified
// expect-kernel: nan_or_number verified
// expect-kernel: uniform_threshold verified

__global__ void nan_test(const float *x, int *out)
{
    float v = x[blockIdx.x * blockDim.x + threadIdx.x];
    if (v != v)
        out[0] = threadIdx.x; //~ data-race
}

__global__ void not_equal_to_itself(const float *x, int *first_nan)
{
    float v = x[blockIdx.x * blockDim.x + threadIdx.x];
    if (!(v == v))
        *first_nan = blockIdx.x * blockDim.x + threadIdx.x; //~ data-race
}

// inf - inf is NaN, which is not 0.
__global__ void self_difference(const float *x, int *out)
{
    float v = x[blockIdx.x * blockDim.x + threadIdx.x];
    float d = v - v;
    if (d != 0)
        out[blockIdx.x] = threadIdx.x; //~ data-race
}

// inf * 0 is NaN.
__global__ void times_zero(const float *x, int *out)
{
    float v = x[blockIdx.x * blockDim.x + threadIdx.x];
    float z = v * 0;
    if (z != 0)
        out[blockIdx.x] = threadIdx.x; //~ data-race
}

// NaN + 0 is NaN, which differs from itself.
__global__ void plus_zero(const float *x, int *out)
{
    float v = x[blockIdx.x * blockDim.x + threadIdx.x];
    float w = v + 0;
    if (w != v)
        out[blockIdx.x] = threadIdx.x; //~ data-race
}

__global__ void double_nan_test(const double *x, int *out)
{
    const double v = x[blockIdx.x * blockDim.x + threadIdx.x];
    bool bad = v != v;
    if (bad)
        out[blockIdx.x] = threadIdx.x; //~ data-race
}

// No value is less than itself, NaN included: the write is dead.
__global__ void less_than_itself(const float *x, int *out)
{
    float v = x[blockIdx.x * blockDim.x + threadIdx.x];
    if (v < v)
        out[0] = threadIdx.x;
}

// Each thread writes its own cell on one branch or the other.
__global__ void nan_or_number(const float *x, int *kind)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    if (v != v)
        kind[i] = 1;
    if (v == v)
        kind[i] = 2;
}

// A comparison of a parameter is the same for every thread: the barrier
// under it is reached by all threads of the block or none.
__global__ void uniform_threshold(const float *x, float *y, float alpha)
{
    __shared__ float tile[64];
    int t = threadIdx.x;
    tile[t] = x[blockIdx.x * blockDim.x + t];
    __syncthreads();
    if (alpha > 0.5f) {
        float v = tile[63 - t] * alpha;
        __syncthreads();
        tile[t] = v;
    }
    y[blockIdx.x * blockDim.x + t] = tile[t];
}
