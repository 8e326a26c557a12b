// if/else with thread-dependent conditions.  In `both_branches_own_cell`
// each branch writes the thread's own cell (verified).  In
// `else_writes_left` odd threads write the cell to their left, which the even
// thread to their left writes in the then-branch (racy: threads 2k and 2k+1
// both write s[2k]).
// syncscope-args: --block-dim 64 --grid-dim 8
// expect-kernel: both_branches_own_cell verified
// expect-kernel: else_writes_left racy

__global__ void both_branches_own_cell(int *out)
{
    __shared__ int s[64];
    int tid = threadIdx.x;
    if (tid % 2 == 0)
        s[tid] = tid;
    else
        s[tid] = -tid;
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[63 - tid];
}

__global__ void else_writes_left(int *out)
{
    __shared__ int s[64];
    int tid = threadIdx.x;
    if (tid % 2 == 0) {
        s[tid] = tid; //~ data-race
    } else {
        s[tid - 1] = -tid; //~ data-race
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[63 - tid];
}
