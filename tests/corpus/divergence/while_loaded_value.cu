// Barriers in a while loop whose condition depends on a per-thread value read
// from global memory: the values (and so the trip counts) may differ between
// the threads of a block.  Both barriers are divergent; neither is
// redundant.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: drain_queue divergent

__global__ void drain_queue(int *out, const int *pending)
{
    __shared__ int s[128];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;
    int left = pending[gid];
    int done = 0;
    while (left > 0) {
        s[tid] = left;
        __syncthreads(); //~ barrier-divergence
        done += s[127 - tid];
        left--;
        __syncthreads(); //~ barrier-divergence
    }
    out[gid] = done;
}
