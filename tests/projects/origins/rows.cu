// Every assumption says where it came from: the annotation in the kernel
// (its line), the block shape from the launch in host.cu (its line). The
// system headers outside the built-in model are one note at the first
// include they come through (the other include as a related location),
// and only those on the preprocessor's taken path (see timing.h).
// expect-kernel: shift_rows verified
#include <cuda_profiler_api.h> //~ include
#include "timing.h" //~ include

__global__ void shift_rows(float* data, int width) {
    __requires(width % 64 == 0);
    __shared__ float s[64];
    int t = threadIdx.x;
    int i = blockIdx.x * 64 + t;
    s[t] = data[i];
    __syncthreads();
    data[i] = s[(t + 1) % 64];
}
