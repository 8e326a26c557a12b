// Includes scan_kernels.cu (one compilation unit) and launches its
// kernels. It defines no kernel of its own.
#include <cuda_runtime.h>

#include "scan_kernels.cu"

#define THREADS 128

void run(float *out, const float *in, int n)
{
    halves<<<n / THREADS, THREADS>>>(out, in);
    halves_wide<<<n / (2 * THREADS), 2 * THREADS>>>(out, in);
}
