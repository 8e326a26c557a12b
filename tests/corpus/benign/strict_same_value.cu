// Item 2 of issue 19, with `--strict-benign`: a write of the same value by
// several threads is a `data-race`, so the kernel whose only race is such
// a write is racy (without the flag it is verified with a `benign-race`
// hint: benign/same_value_flags.cu).
// syncscope-args: --block-dim 128 --grid-dim 8 --strict-benign
// expect-kernel: converged_flag racy

#define BLOCK 128

__global__ void converged_flag(int *converged, const float *delta, float eps)
{
    __shared__ int s_busy;
    if (threadIdx.x == 0)
        s_busy = 0;
    __syncthreads();
    if (delta[blockIdx.x * BLOCK + threadIdx.x] > eps)
        s_busy = 1; //~ data-race
    __syncthreads();
    if (threadIdx.x == 0)
        converged[blockIdx.x] = !s_busy;
}
