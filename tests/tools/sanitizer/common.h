#include <cstdio>
#include <cstdlib>
#include <vector>
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA error %s at %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)
static float *dev(size_t n, float v) { std::vector<float> h(n, v); float *d; cudaMalloc(&d, n * sizeof(float)); cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice); return d; }
