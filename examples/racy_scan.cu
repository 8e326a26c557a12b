// An inclusive prefix sum with a classic bug.
//
//   syncscope examples/racy_scan.cu
//
// Hillis-Steele scan in a single shared buffer: in the step with offset d,
// every thread t >= d adds temp[t - d] into temp[t].  The loop has a barrier
// at the end of each step, but not between the read of temp[t - d] and the
// write of temp[t] -- so thread t reads temp[t - d] while thread t - d is
// updating that very cell.  Syncscope reports one data race with a witness
// like:
//
//   thread 1: threadIdx.x = 2, blockIdx.x = 0   reads  temp[1]
//   thread 2: threadIdx.x = 1, blockIdx.x = 0   writes temp[1]
//   offset = 1, index = 1
//
// Fix: read into a register, __syncthreads(), then write (see the comment
// in the loop).
//
// syncscope-args: --block-dim 512 --grid-dim 64
// expect-kernel: inclusive_scan racy

__global__ void inclusive_scan(float *out, float *block_sums, const float *in)
{
    __shared__ float temp[512];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    temp[tid] = in[gid];
    __syncthreads();

    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        // BUG: needs `float left = temp[tid - offset]; __syncthreads();`
        // before the update, all threads reaching that barrier.
        if (tid >= offset)
            temp[tid] += temp[tid - offset]; //~ data-race
        __syncthreads();
    }

    out[gid] = temp[tid];
    if (tid == 0)
        block_sums[blockIdx.x] = temp[blockDim.x - 1]; // for the next pass
}
