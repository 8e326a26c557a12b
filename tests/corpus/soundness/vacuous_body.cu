// Issue 17 item 12. The whole body sits under a preprocessor condition the
// tool does not take (the device pass is read as sm_60 here; by default
// `__CUDA_ARCH__` is 800, issue 18): the model is empty and nothing was
// checked, so the kernel is not verified, and the finding says why.
// syncscope-args: --block-dim 64 --grid-dim 1 -D __CUDA_ARCH__=600
// expect-kernel: arch_only not-verified

__global__ void arch_only(int *out)
{
#if __CUDA_ARCH__ >= 700 //~ not-verified
    __shared__ int s[64];
    s[threadIdx.x + 1] = threadIdx.x;
    out[threadIdx.x] = s[threadIdx.x];
#endif
}
