// Macros supplied on the command line with -D.  BLOCK comes only from the
// arguments; USE_BARRIER selects the barrier with #ifdef.  With both defined
// the kernel is verified (see define_missing.cu for the same kernel without
// USE_BARRIER).
// syncscope-args: --block-dim 128 --grid-dim 16 -D BLOCK=128 -D USE_BARRIER
// expect-kernel: shift_left verified

__global__ void shift_left(int *out, const int *in)
{
    __shared__ int s[BLOCK];
    int tid = threadIdx.x;
    int gid = blockIdx.x * BLOCK + tid;

    s[tid] = in[gid];
#ifdef USE_BARRIER
    __syncthreads();
#endif
    out[gid] = s[(tid + 1) % BLOCK];
}
