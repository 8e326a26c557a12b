// A barrier inside a grid-stride loop: the number of iterations of a thread
// depends on its global index and n, so near the end of the data some
// threads of a block run one more iteration than others.
// syncscope-args: --block-dim 256 --grid-dim 16
// expect-kernel: staged_copy divergent

__global__ void staged_copy(float *out, const float *in, int n)
{
    __shared__ float s[256];
    int tid = threadIdx.x;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) {
        s[tid] = in[i];
        __syncthreads(); //~ barrier-divergence
        out[i] = s[255 - tid];
        __syncthreads(); //~ barrier-divergence
    }
}
