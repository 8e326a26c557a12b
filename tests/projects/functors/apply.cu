// Functor kernels whose type only the launch gives: a template type
// parameter bound by the launch in the host code below, written
// (`blend<Lerp><<<..>>>`), deduced from a temporary (`Offset{..}`) or from
// a host local declared with the functor's type. No explicit instantiation:
// without the launch these calls would be not-verified.
// expect-kernel: shift_all verified
// expect-kernel: blend verified
// expect-kernel: gather_rows racy
// expect-kernel: never_launched not-verified

struct Offset {
    float by;
    __device__ float operator()(float x) const { return x + by; }
};

struct Lerp {
    float t;
    __device__ float operator()(float a, float b) const { return a + t * (b - a); }
};

struct RowGather {
    float *rows;
    int pitch;
    __device__ float operator()(int r, int c) const
    {
        rows[r * pitch + c] = 0.0f; //~ data-race benign-race
        return rows[r * pitch + c + 1]; //~ data-race
    }
};

template <typename F>
__global__ void shift_all(F f, float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = f(a[i]);
}

template <typename F>
__global__ void blend(F f, const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = f(x[i], y[i]);
}

template <typename F>
__global__ void gather_rows(F f, float *out, int width)
{
    int r = blockIdx.x;
    int c = threadIdx.x;
    out[r * blockDim.x + c] = f(r, c);
}

template <typename F>
__global__ void never_launched(F f, float *a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = f(a[i]); //~ not-verified
}

void launch_all(float *d_a, const float *d_x, const float *d_y, float *d_out,
                float *d_rows, int n, int width)
{
    int blocks = (n + 255) / 256;
    shift_all<<<blocks, 256>>>(Offset{1.0f}, d_a, n);
    blend<Lerp><<<blocks, 256>>>(Lerp{0.25f}, d_x, d_y, d_out, n);
    RowGather g{d_rows, width};
    gather_rows<<<64, 128>>>(g, d_out, width);
}
