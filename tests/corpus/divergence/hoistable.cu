// `if (tid < n) { a; __syncthreads(); b; }` -- the common bounds-check
// mistake: when n is not a multiple of the block size, the threads past n
// skip the barrier.  The quick-fix hoists the barrier out of the branch (see
// hoisted.cu).
// syncscope-args: --block-dim 256 --grid-dim 16
// expect-kernel: guarded_shift divergent

__global__ void guarded_shift(float *out, const float *in, int n)
{
    __shared__ float s[256];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;
    if (gid < n) {
        s[tid] = in[gid];
        __syncthreads(); //~ barrier-divergence
        out[gid] = s[255 - tid];
    }
}
