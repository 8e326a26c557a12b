// Hillis-Steele scan in one buffer done right: read the left operand into a
// register, barrier, then write; a second barrier ends the step.  Both are
// needed.
// syncscope-args: --block-dim 256 --grid-dim 32
// expect-kernel: scan_single_buffer_fixed verified

__global__ void scan_single_buffer_fixed(float *out, float *block_sums, const float *in)
{
    __shared__ float temp[256];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    temp[tid] = in[gid];
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        float left = tid >= offset ? temp[tid - offset] : 0.0f;
        __syncthreads();
        temp[tid] += left;
        __syncthreads();
    }
    out[gid] = temp[tid];
    if (tid == 0)
        block_sums[blockIdx.x] = temp[blockDim.x - 1];
}
