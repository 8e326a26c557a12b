// Faial Claim 1, Test 4 "last-iter-first-iter" (DRF): as the racy version
// but the z-loop writes s[tid+z], so the first z-iteration writes exactly
// the cell the same thread wrote in the last y-iteration.  Both barriers are
// needed: each separates consecutive iterations of its own loop, whose
// writes are shifted by one cell.
// syncscope-args: --block-dim 256 --grid-dim 4
// expect-kernel: last_iter_first_iter_drf verified

__global__ void last_iter_first_iter_drf(int n)
{
    __shared__ int s[256 + 64];
    const int tid = threadIdx.x;

    for (int x = 1; x <= n; x++) {
        for (int y = 1; y <= x; y++) {
            __syncthreads();
            s[tid + x + y] = y;
        }
        for (int z = 2 * x; z < 3 * x; z++) {
            s[tid + z] = z;
            __syncthreads();
        }
    }
}
