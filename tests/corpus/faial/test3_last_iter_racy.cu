// Faial Claim 1, Test 3 "last-iter" (racy).  Protocol (Fig. 5):
//     for^s x in 0..N { sync; wr[tid+1] }; wr[tid+T]
// The write of the LAST iteration and the write after the loop share a
// barrier interval: thread T-1 writes s[T] in the last iteration while
// thread 0 writes s[0+T] after the loop (T = blockDim.x).
// The write before the loop only makes the loop's barrier necessary.
// syncscope-args: --block-dim 256 --grid-dim 4
// expect-kernel: last_iter_racy racy

__global__ void last_iter_racy(int n)
{
    __shared__ int s[512];
    const int tid = threadIdx.x;

    s[tid] = 0;
    for (int x = 0; x < n; x++) {
        __syncthreads();
        s[tid + 1] = x; //~ data-race
    }
    s[tid + blockDim.x] = n; //~ data-race
}
