// What a compiler's preprocessor accepts and a reader of the raw text does
// not, in one file with no headers: a comment after a macro's value, a
// value over continued lines, an `#if` inside a parameter list and inside
// an argument list, and kernels inside `extern "C" {` under
// `#ifdef __cplusplus` (nvcc compiles C++). Each kernel has a racy twin.
// syncscope-args: --block-dim 128 --grid-dim 1
// expect-kernel: stride_ok verified
// expect-kernel: stride_short racy
// expect-kernel: narrowed verified
// expect-kernel: narrowed_racy racy
// expect-kernel: c_linkage_ok verified
// expect-kernel: c_linkage_racy racy

#define LANES 128 // threads per block
#define HALF_LANES \
    (LANES / 2)   /* the half each thread pairs with */
#define SHORT_STRIDE 32 /* too short: pairs overlap */

// Threads t and t + 64 pair up; each writes its own cell.
__global__ void stride_ok(float *out)
{
    __shared__ float s[LANES];
    int t = threadIdx.x;
    s[t] = out[t];
    __syncthreads();
    out[t] = s[(t + HALF_LANES) % LANES];
}

// Each thread writes s[t] and s[t + 32]: thread t + 32 writes s[t + 32] too.
__global__ void stride_short(float *out)
{
    __shared__ float s[2 * LANES];
    int t = threadIdx.x;
    s[t] = out[t];
    s[t + SHORT_STRIDE] = 0.0f; //~ data-race
    __syncthreads();
    out[t] = s[t];
}

__global__ void narrowed(float *out,
#if LANES > 64
                         const float *in,
#else
                         const int *in,
#endif
                         int n)
{
    __shared__ float s[LANES];
    int t = threadIdx.x;
    s[t] = in[t] + n;
    __syncthreads();
    out[t] = s[LANES - 1 - t];
}

__global__ void narrowed_racy(float *out,
#ifdef __CUDACC__
                              const float *in,
#endif
                              int n)
{
    __shared__ float s[LANES];
    int t = threadIdx.x;
    s[t] = in[t] + n;
    out[t] = s[LANES - 1 - t]; //~ data-race
}

#ifdef __cplusplus
extern "C" {
#endif

__global__ void c_linkage_ok(int *out)
{
    __shared__ int s[LANES];
    s[threadIdx.x] = max(threadIdx.x,
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
                         0u
#else
                         1u
#endif
                         );
    __syncthreads();
    out[threadIdx.x] = s[LANES - 1 - threadIdx.x];
}

__global__ void c_linkage_racy(int *out)
{
    __shared__ int s[LANES];
    s[threadIdx.x] = (int)threadIdx.x;
    out[threadIdx.x] = s[(threadIdx.x + 1) % LANES]; //~ data-race
}

#ifdef __cplusplus
}
#endif
