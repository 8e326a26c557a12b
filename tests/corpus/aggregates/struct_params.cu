// Aggregates passed to kernels the way real code passes them: a struct of
// buffers by value (each pointer member a buffer of its own, distinct from
// the others like distinct pointer parameters), an array of pointers built
// from parameters, a pointer to a `__shared__` scalar, and a pointer to a
// thread-local array.
//  * saxpy_params:       y[i] = a * x[i] + y[i] through a struct: verified.
//  * shift_params_racy:  out[i] = out[i + 1] through the struct: racy.
//  * gather_planes:      an array of plane pointers, each thread its own
//                        element of each plane: which buffer `planes[c]` is
//                        is not tracked, so every use of one is named:
//                        not-verified (before issue 19 a write through such
//                        an element was silently dropped).
//  * count_through_ptr_racy: every thread stores through a pointer to a
//                        `__shared__` counter: racy.
//  * local_scratch:      a pointer into a thread-local array: private to the
//                        thread, verified.
// syncscope-args: --block-dim 128 --grid-dim 32
// expect-kernel: saxpy_params verified
// expect-kernel: shift_params_racy racy
// expect-kernel: gather_planes not-verified
// expect-kernel: count_through_ptr_racy racy
// expect-kernel: local_scratch verified

struct SaxpyArgs {
    const float *x;
    float *y;
    float a;
    int n;
};

__device__ __forceinline__ int global_id() { return blockIdx.x * blockDim.x + threadIdx.x; }

__global__ void saxpy_params(SaxpyArgs args)
{
    int i = global_id();
    if (i < args.n)
        args.y[i] = args.a * args.x[i] + args.y[i];
}

__global__ void shift_params_racy(SaxpyArgs args)
{
    int i = global_id();
    if (i + 1 < args.n)
        args.y[i] = args.y[i + 1]; //~ data-race
}

__global__ void gather_planes(const float *r, const float *g, const float *b, float *luma, int n)
{
    const float *planes[3] = {r, g, b};
    const float weights[3] = {0.299f, 0.587f, 0.114f};
    int i = global_id();
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int c = 0; c < 3; ++c)
        acc += weights[c] * planes[c][i]; //~ not-verified
    luma[i] = acc;
}

__global__ void count_through_ptr_racy(int *out)
{
    __shared__ int last;
    int *slot = &last;
    *slot = threadIdx.x; //~ data-race
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = last;
}

__global__ void local_scratch(const float *in, float *out)
{
    float window[4];
    float *w = window;
    int i = global_id();
    for (int k = 0; k < 4; ++k)
        w[k] = in[4 * i + k];
    out[i] = w[0] + w[1] + w[2] + w[3];
}
