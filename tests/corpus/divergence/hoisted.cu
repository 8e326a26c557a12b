// hoistable.cu after the quick-fix: the barrier is hoisted out of the branch
// and the branch is split around it, so every thread reaches it.
// syncscope-args: --block-dim 256 --grid-dim 16
// expect-kernel: guarded_shift_hoisted verified

__global__ void guarded_shift_hoisted(float *out, const float *in, int n)
{
    __shared__ float s[256];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;
    if (gid < n)
        s[tid] = in[gid];
    __syncthreads();
    if (gid < n)
        out[gid] = s[255 - tid];
}
