// Issue 17 item 2. A redundancy claim is a proof that the kernel without
// the barrier verifies. Here `fill` has no body: it receives a pointer into
// `s` and may write any cell of it, so the kernel is not verified and the
// barrier after the call (which would order those writes before the reads)
// gets no redundancy claim.
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: opaque_writer not-verified

__device__ void fill(int *p, int t);

__global__ void opaque_writer(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    fill(s, t); //~ not-verified
    __syncthreads();
    out[t] = s[(t + 1) % 64];
}
