// Host code of host_loops/kernels.cu: the loops that make the strides.
#include <cuda_runtime.h>

#define RUN 1024

__global__ void compare_step(unsigned* keys, unsigned stride);
__global__ void merge_step(unsigned* keys, unsigned size, unsigned stride);
__global__ void third_step(unsigned* keys, unsigned stride);

void sort_network(unsigned* keys, unsigned n) {
    for (unsigned size = 2 * RUN; size <= n; size <<= 1) {
        for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
            compare_step<<<n / 512, 256>>>(keys, stride);
            merge_step<<<n / 512, 256>>>(keys, size, stride);
        }
    }
}

void thirds(unsigned* keys, unsigned n) {
    for (unsigned stride = n / 3; stride > 0; stride >>= 1) {
        third_step<<<n / 512, 256>>>(keys, stride);
    }
}
