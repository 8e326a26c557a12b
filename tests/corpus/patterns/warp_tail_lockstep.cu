// warp_tail_racy.cu analysed with --warp-sync (legacy lockstep warps, as
// on pre-Volta GPUs or with -arch=sm_6x semantics): each statement of the
// first warp completes for all its lanes before the next one starts, and a
// lane reading sm[t + k] in the same statement that lane t + k writes it
// reads the old value.  No race.
// syncscope-args: --block-dim 256 --grid-dim 64 --warp-sync
// expect-kernel: reduce_warp_unrolled_lockstep verified

__global__ void reduce_warp_unrolled_lockstep(int *out, const int *in)
{
    __shared__ int sdata[256];
    unsigned int tid = threadIdx.x;

    sdata[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid < 32) {
        volatile int *sm = sdata;
        sm[tid] += sm[tid + 32];
        sm[tid] += sm[tid + 16];
        sm[tid] += sm[tid + 8];
        sm[tid] += sm[tid + 4];
        sm[tid] += sm[tid + 2];
        sm[tid] += sm[tid + 1];
    }

    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
