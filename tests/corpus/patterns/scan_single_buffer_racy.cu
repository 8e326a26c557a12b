// Hillis-Steele scan in ONE buffer with only one barrier per step: thread t
// reads temp[t - offset] while thread t - offset updates that very cell in
// the same step.  (The fix, scan_single_buffer_fixed.cu, reads into a
// register and adds a second barrier before the write.)
// syncscope-args: --block-dim 256 --grid-dim 32
// expect-kernel: scan_single_buffer racy

__global__ void scan_single_buffer(float *out, float *block_sums, const float *in)
{
    __shared__ float temp[256];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    temp[tid] = in[gid];
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        if (tid >= offset) {
            float left = temp[tid - offset]; //~ data-race
            temp[tid] += left; //~ data-race
        }
        __syncthreads();
    }
    out[gid] = temp[tid];
    if (tid == 0)
        block_sums[blockIdx.x] = temp[blockDim.x - 1];
}
