// Faial Claim 1, Test 2 "first-iter" (racy).  Protocol (Fig. 5):
//     wr[tid+1]; for^s x in 0..N { wr[tid]; sync }
// The write before the loop and the write of the FIRST iteration share a
// barrier interval: thread t+1 writes s[t+1] in iteration 0 while thread t
// is still writing s[t+1] before the loop.  The read after the loop is
// separated from the last iteration by the barrier at the end of the body.
// syncscope-args: --block-dim 256 --grid-dim 4
// expect-kernel: first_iter_racy racy

__global__ void first_iter_racy(int *out, int n)
{
    __shared__ int s[257];
    const int tid = threadIdx.x;

    s[tid + 1] = tid; //~ data-race
    for (int x = 0; x < n; x++) {
        s[tid] = x; //~ data-race
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + tid] = s[tid + 1];
}
