// Sarkar et al., Example 1, IR 2 in isolation: every thread writes
// A[tid % 2], so threads 0 and 2 both write A[0].  The witness shows two
// threads with equal threadIdx.x parity and index = 0 or 1.
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: ir2_same_cell racy

__global__ void ir2_same_cell(int *out)
{
    __shared__ int A[2];
    int tid = threadIdx.x;

    A[tid % 2] = tid; //~ data-race
    __syncthreads();
    if (tid < 2)
        out[tid] = A[tid];
}
