// An FIR filter whose constants live in include/dsp, found through -I.
// syncscope-args: -I ../include
// expect-kernel: fir verified
#include <dsp/fir.cuh>

__global__ void fir(const float* x, float* y, int n) {
    __shared__ float window[FIR_BLOCK + FIR_TAPS];
    int base = blockIdx.x * FIR_BLOCK;
    int t = threadIdx.x;
    window[t] = x[base + t];
    if (t < FIR_TAPS) {
        window[FIR_BLOCK + t] = x[base + FIR_BLOCK + t];
    }
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < FIR_TAPS; ++k) {
        acc += tap_weight(k) * window[t + k];
    }
    y[base + t] = acc;
}

void run_fir(const float* x, float* y, int n) {
    fir<<<n / FIR_BLOCK, FIR_BLOCK>>>(x, y, n);
}
