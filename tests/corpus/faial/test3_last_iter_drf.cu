// Faial Claim 1, Test 3 "last-iter" (DRF).  Protocol (Fig. 5):
//     for^s x in 0..N { sync; if (tid < T-1) { wr[tid+1] } }; wr[tid+T]
// With the guard the loop writes s[1..T-1] and the code after the loop
// writes s[T..2T-1]: disjoint, so the missing barrier after the loop is fine.
// syncscope-args: --block-dim 256 --grid-dim 4
// expect-kernel: last_iter_drf verified

__global__ void last_iter_drf(int n)
{
    __shared__ int s[512];
    const int tid = threadIdx.x;

    s[tid] = 0;
    for (int x = 0; x < n; x++) {
        __syncthreads();
        if (tid < blockDim.x - 1)
            s[tid + 1] = x;
    }
    s[tid + blockDim.x] = n;
}
