#include "common.h"
#include "../../../examples/racy_scan.cu"
int main() { float *o = dev(64 * 512, 0), *s = dev(64, 0), *i = dev(64 * 512, 1);
  inclusive_scan<<<64, 512>>>(o, s, i); CHECK(cudaDeviceSynchronize()); printf("ok\n"); return 0; }
