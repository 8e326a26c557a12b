// Block-wide sum reduction -- the "hello world" of shared-memory kernels.
//
//   syncscope check examples/reduction.cu
//
// Each block of 256 threads sums 512 input elements (two per thread, added
// while loading) and writes one partial sum.  Syncscope proves the kernel
// free of data races and barrier divergence for this launch, and finds no
// redundant barrier: removing any __syncthreads() below creates a race.
//
// The `syncscope-args` line below fixes the launch for this file:
// `syncscope check` applies it when the command line gives no launch sizes
// or macros. The `expect-kernel` line is a test marker: the test suite
// (tests/corpus.rs) expects that verdict.
//
// syncscope-args: --block-dim 256 --grid-dim 1024
// expect-kernel: block_sum verified

__global__ void block_sum(float *partial, const float *in, int n)
{
    __shared__ float sdata[256];
    int tid = threadIdx.x;
    int i = blockIdx.x * (2 * blockDim.x) + tid;

    // Load two elements per thread; out-of-range elements count as zero.
    float v = 0.0f;
    if (i < n)
        v = in[i];
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads(); // publish the loads before anyone reads a neighbour

    // Halve the number of active threads each step.  In a step, thread t < s
    // writes cell t and reads cell t + s >= s: no two threads meet.  The
    // barrier at the end of the step orders it before the next one.
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0)
        partial[blockIdx.x] = sdata[0];
}
