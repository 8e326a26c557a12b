// Host code of the block sums in this folder: the kernel is picked by
// `which`, and the templated ones by the block size, one instance per
// `case` label (the label ties the template argument to the block).
#include <cuda_runtime.h>

__global__ void sum_loop(const float *in, float *out);
template <unsigned int Size> __global__ void sum_sized(const float *in, float *out);
template <unsigned int Size> __global__ void sum_unrolled(const float *in, float *out);
template <unsigned int Size> __global__ void sum_sized_bug_start(const float *in, float *out);
template <unsigned int Size> __global__ void sum_unrolled_bug_partner(const float *in, float *out);
template <unsigned int Size> __global__ void sum_wide(const float *in, float *out);

void block_sums(const float *in, float *out, int threads, int blocks, int which)
{
    dim3 block(threads, 1, 1);
    dim3 grid(blocks, 1, 1);
    size_t bytes = threads * sizeof(float);
    switch (which) {
    case 0:
        sum_loop<<<grid, block, bytes>>>(in, out);
        break;
    case 1:
        switch (threads) {
        case 128:
            sum_sized<128><<<grid, block, bytes>>>(in, out);
            break;
        case 64:
            sum_sized<64><<<grid, block, bytes>>>(in, out);
            break;
        case 32:
            sum_sized<32><<<grid, block, bytes>>>(in, out);
            break;
        }
        break;
    case 2:
        switch (threads) {
        case 128:
            sum_unrolled<128><<<grid, block, bytes>>>(in, out);
            break;
        case 64:
            sum_unrolled<64><<<grid, block, bytes>>>(in, out);
            break;
        case 32:
            sum_unrolled<32><<<grid, block, bytes>>>(in, out);
            break;
        }
        break;
    case 3:
        switch (threads) {
        case 128:
            sum_sized_bug_start<128><<<grid, block, bytes>>>(in, out);
            break;
        case 64:
            sum_sized_bug_start<64><<<grid, block, bytes>>>(in, out);
            break;
        case 32:
            sum_sized_bug_start<32><<<grid, block, bytes>>>(in, out);
            break;
        }
        break;
    case 4:
        switch (threads) {
        case 128:
            sum_unrolled_bug_partner<128><<<grid, block, bytes>>>(in, out);
            break;
        case 64:
            sum_unrolled_bug_partner<64><<<grid, block, bytes>>>(in, out);
            break;
        case 32:
            sum_unrolled_bug_partner<32><<<grid, block, bytes>>>(in, out);
            break;
        }
        break;
    case 5:
        // Only the two wider sizes: a 32-thread launch of the others has
        // no counterpart here.
        switch (threads) {
        case 128:
            sum_wide<128><<<grid, block, bytes>>>(in, out);
            break;
        case 64:
            sum_wide<64><<<grid, block, bytes>>>(in, out);
            break;
        }
        break;
    }
}
