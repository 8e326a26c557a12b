// Scales a vector, one element a thread, indexed by the launch's block
// size. Equivalent to scale_blocked.cu under the 256-thread blocks of
// syncscope.toml (tests/equiv.rs).
// expect-kernel: scale verified
__global__ void scale(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = 2.0f * in[i];
    }
}
