#include "common.h"
#include "../../../examples/divergent.cu"
int main(int argc, char **argv) { int cols = argc > 1 ? atoi(argv[1]) : 200; float *m = dev(4096 * 256, 2), *r = dev(4096, 4);
  normalise_rows<<<4096, 256>>>(m, r, cols); CHECK(cudaDeviceSynchronize()); printf("ok\n"); return 0; }
