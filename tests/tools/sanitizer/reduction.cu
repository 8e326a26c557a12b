#include "common.h"
#include "../../../examples/reduction.cu"
int main() { int n = 1024 * 512; float *p = dev(1024, 0), *i = dev(n, 1);
  block_sum<<<1024, 256>>>(p, i, n); CHECK(cudaDeviceSynchronize()); printf("ok\n"); return 0; }
