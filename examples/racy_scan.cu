// An inclusive prefix sum with a classic bug.
//
//   syncscope check examples/racy_scan.cu
//
// Hillis-Steele scan in a single shared buffer: in the step with offset d,
// every thread t >= d adds temp[t - d] into temp[t].  The loop has a barrier
// at the end of each step, but not between the read of temp[t - d] and the
// write of temp[t] -- so thread t reads temp[t - d] while thread t - d is
// updating that very cell.  Syncscope reports one data race with a
// witness: in the step with offset = 1, thread (1,0,0) writes temp[1] while
// thread (2,0,0) reads it as temp[tid - offset].
//
// Fix: read into a register, __syncthreads(), then write (see the comment
// in the loop).
//
// The `syncscope-args` line below fixes the launch for this file:
// `syncscope check` applies it when the command line gives no launch sizes
// or macros. The `expect-kernel` line and the `~ data-race` comment at the
// end of a line in the kernel are test markers: the test suite
// (tests/corpus.rs) expects that verdict, and a finding of that kind on
// that line.
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
