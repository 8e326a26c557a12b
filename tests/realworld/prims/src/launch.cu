// Host code: launch sizes of the primitives, with the host checks the
// kernels rely on.
#include <cassert>
#include <cuda_runtime.h>
#include "../include/prims/config.h"

__global__ void scan_double_buffer(const float* in, float* out);
__global__ void scan_in_place(float* data);
__global__ void scan_blelloch(float* data, int n);
__global__ void bitonic_sort(float* data);
__global__ void odd_even_sort(float* data);
__global__ void odd_even_sort_nosync(float* data);
template <int BLOCK>
__global__ void reduce_tree(const float* in, float* out);
__global__ void reduce_cg(const float* in, float* out, int n);
__global__ void warp_max(const float* in, float* out, int n);
__global__ void reduce_tree_early_exit(const float* in, float* out, int n);

static bool is_pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }

void prims(float* a, float* b, int n, int blocks) {
    scan_double_buffer<<<blocks, SCAN_BLOCK>>>(a, b);
    scan_in_place<<<blocks, SCAN_BLOCK>>>(a);
    assert(is_pow2(n) && n <= 2048);
    scan_blelloch<<<1, n / 2, n * sizeof(float)>>>(a, n);
    bitonic_sort<<<blocks, SORT_N>>>(a);
    odd_even_sort<<<blocks, SORT_N>>>(a);
    odd_even_sort_nosync<<<blocks, SORT_N>>>(a);
    reduce_tree<REDUCE_BLOCK><<<blocks, REDUCE_BLOCK>>>(a, b);
    reduce_cg<<<blocks, REDUCE_BLOCK>>>(a, b, n);
    warp_max<<<blocks, 256>>>(a, b, n);
    reduce_tree_early_exit<<<blocks, REDUCE_BLOCK>>>(a, b, n);
}
