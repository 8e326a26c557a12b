// A `template <int N>` kernel with a default argument and no instantiation
// in the file: it is analysed with N = 128.  The barrier is needed.
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: reverse_tile verified

template <int N = 128>
__global__ void reverse_tile(float *out, const float *in)
{
    __shared__ float s[N];
    int tid = threadIdx.x;
    int gid = blockIdx.x * N + tid;

    s[tid] = in[gid];
    __syncthreads();
    out[gid] = s[N - 1 - tid];
}
