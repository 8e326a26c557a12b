// Barriers under conditions on a kernel parameter, blockDim and gridDim, and
// in a loop bounded by a parameter: uniform across the block, so not
// divergent.  Both barriers are needed.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: optional_smoothing verified

__global__ void optional_smoothing(float *out, const float *in, int smooth, int passes)
{
    __shared__ float s[130];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;
    float v = in[gid];
    if (smooth != 0 && blockDim.x >= 64 && gridDim.x > 1) {
        for (int p = 0; p < passes; p++) {
            s[tid + 1] = v;
            if (tid == 0) {
                s[0] = v;
                s[129] = v;
            }
            __syncthreads();
            v = (s[tid] + s[tid + 1] + s[tid + 2]) / 3.0f;
            __syncthreads();
        }
    }
    out[gid] = v;
}
