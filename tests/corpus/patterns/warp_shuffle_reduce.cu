// Block reduction with warp shuffles: each warp reduces in registers with
// __shfl_down_sync (register exchange, not memory), lane 0 of each warp
// publishes its partial sum to shared memory, and after a barrier the first
// warp reduces the partials the same way.  The barrier is needed.
// syncscope-args: --block-dim 256 --grid-dim 64
// expect-kernel: reduce_shuffle verified

__device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__global__ void reduce_shuffle(float *out, const float *in, int n)
{
    __shared__ float partial[32];
    int tid = threadIdx.x;
    int lane = tid % 32;
    int warp = tid / 32;
    int i = blockIdx.x * blockDim.x + tid;

    float v = i < n ? in[i] : 0.0f;
    v = warp_sum(v);
    if (lane == 0)
        partial[warp] = v;
    __syncthreads();

    if (warp == 0) {
        v = lane < blockDim.x / 32 ? partial[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}
