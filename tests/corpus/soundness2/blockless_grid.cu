// Issue 26, hole 1: a kernel that never reads `blockIdx` or `gridDim` still
// runs as many blocks as its launch asks; every block does the same work, so
// thread 0 of two blocks updates one global counter (a race), whatever its
// guard pins within the block. The grid's y and z stay 1 (dimensions a
// kernel never mentions). Shared memory is one per block: a block-only
// kernel that writes only shared memory and its own global cells per block
// is still verified. Symbolic launch.
// expect-kernel: total racy
// expect-kernel: own_block_scratch verified

__global__ void total(int *t) {
    if (threadIdx.x == 0) *t += 1; //~ data-race benign-race
}

__global__ void own_block_scratch(const float *in, float *out) {
    __shared__ float s[1024];
    s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    float v = s[(threadIdx.x + 1) % blockDim.x];
    (void)v;
}
