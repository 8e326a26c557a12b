// Warp matrix operations in a block whose rows are not whole warps
// (`--block-dim 16,8`: one warp is two rows of 16 threads): the lane of a
// thread is its linear index in the block modulo 32, so the two rows of a
// warp load and store one tile together.
//  * row_pairs:         the tile chosen by the warp's index (two rows a
//                       warp): verified.
//  * row_quads:         the tile chosen by `threadIdx.y / 4`: two warps
//                       store the same tile: racy.
// syncscope-args: --block-dim 16,8 --grid-dim 4
// expect-kernel: row_pairs verified
// expect-kernel: row_quads racy

#include <mma.h>
using namespace nvcuda;

__global__ void row_pairs(const float *in, float *out)
{
    const int warp = (threadIdx.y * blockDim.x + threadIdx.x) / 32;
    const int tile = blockIdx.x * 4 + warp;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
    wmma::load_matrix_sync(acc, in + tile * 256, 16, wmma::mem_row_major);
    for (int i = 0; i < acc.num_elements; i++) {
        acc.x[i] = acc.x[i] + 1.0f;
    }
    wmma::store_matrix_sync(out + tile * 256, acc, 16, wmma::mem_col_major);
}

__global__ void row_quads(const float *in, float *out)
{
    const int tile = blockIdx.x * 2 + threadIdx.y / 4;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
    wmma::load_matrix_sync(acc, in + tile * 256, 16, wmma::mem_row_major);
    wmma::store_matrix_sync(out + tile * 256, acc, 16, wmma::mem_col_major); //~ data-race
}
