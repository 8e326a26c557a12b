// A `template <int N>` kernel analysed at its explicit instantiation
// (N = 64).  Each thread writes s[tid % N]; with 128 threads per block
// threads t and t + 64 write the same cell, so the kernel is racy for this
// launch.  N is only known from the instantiation at the bottom of the file.
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: fold_tile racy

template <int N>
__global__ void fold_tile(float *out, const float *in)
{
    __shared__ float s[N];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    s[tid % N] = in[gid]; //~ data-race
    __syncthreads();
    out[gid] = s[N - 1 - tid % N];
}

template __global__ void fold_tile<64>(float *out, const float *in);
