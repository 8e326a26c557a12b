// Host code of the `origins` fixture: the one launch of `shift_rows`,
// whose block shape (64 threads in x only) the kernel is checked under.
#include <cuda_runtime.h>

__global__ void shift_rows(float* data, int width);

void run(float* data, int width) {
    dim3 block(64);
    shift_rows<<<width / 64, block>>>(data, width);
}
