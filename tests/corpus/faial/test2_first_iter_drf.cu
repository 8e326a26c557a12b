// Faial Claim 1, Test 2 "first-iter" (DRF).  Protocol (Fig. 5):
//     wr[tid+1]; for^s x in 0..N { if (x > 0) { wr[tid] }; sync }
// The first iteration does not write, so its barrier separates the write
// before the loop from every write inside the loop.
// syncscope-args: --block-dim 256 --grid-dim 4
// expect-kernel: first_iter_drf verified

__global__ void first_iter_drf(int *out, int n)
{
    __shared__ int s[257];
    const int tid = threadIdx.x;

    s[tid + 1] = tid;
    for (int x = 0; x < n; x++) {
        if (x > 0)
            s[tid] = x;
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + tid] = s[tid + 1];
}
