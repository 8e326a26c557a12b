// define_from_args.cu without -D USE_BARRIER: the #ifdef drops the barrier
// and thread t reads s[t + 1] while thread t + 1 writes it.
// syncscope-args: --block-dim 128 --grid-dim 16 -D BLOCK=128
// expect-kernel: shift_left_unsynced racy

__global__ void shift_left_unsynced(int *out, const int *in)
{
    __shared__ int s[BLOCK];
    int tid = threadIdx.x;
    int gid = blockIdx.x * BLOCK + tid;

    s[tid] = in[gid]; //~ data-race
#ifdef USE_BARRIER
    __syncthreads();
#endif
    out[gid] = s[(tid + 1) % BLOCK]; //~ data-race
}
