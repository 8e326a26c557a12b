// Faial Claim 1, Test 4 "last-iter-first-iter" (racy).  Protocol (Fig. 5):
//     for^s x in 1..N+1 {
//       for^s y in 1..x+1 { sync; wr[tid+x+y] };
//       for^s z in 2x..3x { wr[tid+z+1]; sync } }
// The last iteration of the y-loop (y = x, writes s[tid+2x]) and the first
// iteration of the z-loop (z = 2x, writes s[tid+2x+1]) are not separated by
// any barrier: thread t+1 and thread t collide on s[t+2x+1].
// (The array is large enough for n <= 16; bounds are not checked.)
// syncscope-args: --block-dim 256 --grid-dim 4
// expect-kernel: last_iter_first_iter_racy racy

__global__ void last_iter_first_iter_racy(int n)
{
    __shared__ int s[256 + 64];
    const int tid = threadIdx.x;

    for (int x = 1; x <= n; x++) {
        for (int y = 1; y <= x; y++) {
            __syncthreads();
            s[tid + x + y] = y; //~ data-race
        }
        for (int z = 2 * x; z < 3 * x; z++) {
            s[tid + z + 1] = z; //~ data-race
            __syncthreads();
        }
    }
}
