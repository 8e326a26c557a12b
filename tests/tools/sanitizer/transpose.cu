#include "common.h"
#define TILE_DIM 32
#define BLOCK_ROWS 8
#include "../../../examples/transpose.cu"
int main() { size_t n = (size_t)(64 * 32) * (64 * 32); float *o = dev(n, 0), *i = dev(n, 1);
  transpose<<<dim3(64, 64), dim3(32, 8)>>>(o, i); CHECK(cudaDeviceSynchronize()); printf("ok\n"); return 0; }
