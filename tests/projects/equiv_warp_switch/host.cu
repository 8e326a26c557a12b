// Host code of the block sums in this folder, picked by `which` and
// instantiated once per `case` of `switch (threads)` (the label ties the
// template argument to the block), down to blocks smaller than a warp.
#include <cuda_runtime.h>

template <unsigned int Size> __global__ void sum_tree(const float *in, float *out);
template <unsigned int Size> __global__ void sum_warp(const float *in, float *out);
template <unsigned int Size> __global__ void sum_warp_bug_lane(const float *in, float *out);

void block_sums(const float *in, float *out, int threads, int blocks, int which)
{
    dim3 block(threads, 1, 1);
    dim3 grid(blocks, 1, 1);
    size_t bytes = threads * sizeof(float);
    switch (which) {
    case 0:
        switch (threads) {
        case 128:
            sum_tree<128><<<grid, block, bytes>>>(in, out);
            break;
        case 64:
            sum_tree<64><<<grid, block, bytes>>>(in, out);
            break;
        case 32:
            sum_tree<32><<<grid, block, bytes>>>(in, out);
            break;
        case 16:
            sum_tree<16><<<grid, block, bytes>>>(in, out);
            break;
        case 8:
            sum_tree<8><<<grid, block, bytes>>>(in, out);
            break;
        }
        break;
    case 1:
        switch (threads) {
        case 128:
            sum_warp<128><<<grid, block, bytes>>>(in, out);
            break;
        case 64:
            sum_warp<64><<<grid, block, bytes>>>(in, out);
            break;
        case 32:
            sum_warp<32><<<grid, block, bytes>>>(in, out);
            break;
        case 16:
            sum_warp<16><<<grid, block, bytes>>>(in, out);
            break;
        case 8:
            sum_warp<8><<<grid, block, bytes>>>(in, out);
            break;
        }
        break;
    case 2:
        switch (threads) {
        case 128:
            sum_warp_bug_lane<128><<<grid, block, bytes>>>(in, out);
            break;
        case 64:
            sum_warp_bug_lane<64><<<grid, block, bytes>>>(in, out);
            break;
        case 32:
            sum_warp_bug_lane<32><<<grid, block, bytes>>>(in, out);
            break;
        case 16:
            sum_warp_bug_lane<16><<<grid, block, bytes>>>(in, out);
            break;
        case 8:
            sum_warp_bug_lane<8><<<grid, block, bytes>>>(in, out);
            break;
        }
        break;
    }
}
