// Warp matrix operations (`nvcuda::wmma`): `load_matrix_sync` reads and
// `store_matrix_sync` writes a fragment's whole tile (rows x cols elements
// at `ptr + r * ldm + c`, row-major; column-major swaps rows and columns),
// collectively by the warp: any lane may touch any element, so the tile's
// accesses belong to the warp (the lanes of one warp never race with each
// other on them) but race with another warp's overlapping tile and with a
// plain access of any other thread. `fill_fragment`, `mma_sync` and the
// fragment's `x[i]` elements are the thread's registers.
//  * warp_tiles:           each warp multiplies and stores its own 16x16
//                          tile of `d`: verified.
//  * warp_tiles_overlap:   the warps' tiles start 8 columns apart, so two
//                          warps store overlapping tiles: racy.
//  * warp_tiles_col_major: the output stored column-major, tiles 16 rows
//                          apart in a matrix of leading dimension ldd:
//                          verified.
//  * staged_epilogue:      each warp stores its tile into its own region of
//                          shared memory; after a barrier every thread
//                          reads one element of its own warp's region:
//                          verified.
//  * staged_epilogue_early: the same without the barrier: a lane reads an
//                          element another lane of its warp may write: racy.
//  * staged_neighbour:     every warp loads its neighbour's shared tile in
//                          the interval in which that warp stores it: racy.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: warp_tiles verified
// expect-kernel: warp_tiles_overlap racy
// expect-kernel: warp_tiles_col_major verified
// expect-kernel: staged_epilogue verified
// expect-kernel: staged_epilogue_early racy
// expect-kernel: staged_neighbour racy

#include <mma.h>
using namespace nvcuda;

#define TILE 16

__global__ void warp_tiles(const half *a, const half *b, float *d, int kdim, int ldd)
{
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    wmma::fragment<wmma::matrix_a, TILE, TILE, TILE, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, TILE, TILE, TILE, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, TILE, TILE, TILE, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < kdim; k += TILE) {
        wmma::load_matrix_sync(fa, a + k, kdim);
        wmma::load_matrix_sync(fb, b + warp * TILE * kdim + k, kdim);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    for (int i = 0; i < acc.num_elements; i++) {
        acc.x[i] = 2.0f * acc.x[i];
    }
    // The 32 warps' tiles side by side in rows of at least 32 tiles.
    if (ldd >= 32 * TILE) {
        wmma::store_matrix_sync(d + warp * TILE, acc, ldd, wmma::mem_row_major);
    }
}

__global__ void warp_tiles_overlap(const half *a, const half *b, float *d, int kdim, int ldd)
{
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    wmma::fragment<wmma::matrix_a, TILE, TILE, TILE, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, TILE, TILE, TILE, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, TILE, TILE, TILE, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a, kdim);
    wmma::load_matrix_sync(fb, b + warp * TILE * kdim, kdim);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d + warp * (TILE / 2), acc, ldd, wmma::mem_row_major); //~ data-race
}

__global__ void warp_tiles_col_major(const half *a, const half *b, float *d, int kdim, int ldd)
{
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    wmma::fragment<wmma::matrix_a, TILE, TILE, TILE, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, TILE, TILE, TILE, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, TILE, TILE, TILE, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a + warp * TILE * kdim, kdim);
    wmma::load_matrix_sync(fb, b, kdim);
    wmma::mma_sync(acc, fa, fb, acc);
    // Column-major: element (r, c) at d[c * ldd + r]; the warps' tiles are
    // 16 rows apart, disjoint when a column holds the 32 warps' rows.
    if (ldd >= 32 * TILE) {
        wmma::store_matrix_sync(d + warp * TILE, acc, ldd, wmma::mem_col_major);
    }
}

__global__ void staged_epilogue(const half *a, const half *b, float *out, int kdim)
{
    __shared__ float stage[4][TILE * TILE];
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    wmma::fragment<wmma::matrix_a, TILE, TILE, TILE, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, TILE, TILE, TILE, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, TILE, TILE, TILE, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a, kdim);
    wmma::load_matrix_sync(fb, b + warp * TILE * kdim, kdim);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(stage[warp], acc, TILE, wmma::mem_row_major);
    __syncthreads();
    out[(blockIdx.x * blockDim.x + threadIdx.x)] = stage[warp][lane * 8] + stage[warp][lane * 8 + 7];
}

__global__ void staged_epilogue_early(const half *a, const half *b, float *out, int kdim)
{
    __shared__ float stage[4][TILE * TILE];
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    wmma::fragment<wmma::matrix_a, TILE, TILE, TILE, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, TILE, TILE, TILE, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, TILE, TILE, TILE, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a, kdim);
    wmma::load_matrix_sync(fb, b + warp * TILE * kdim, kdim);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(stage[warp], acc, TILE, wmma::mem_row_major); //~ data-race
    out[(blockIdx.x * blockDim.x + threadIdx.x)] = stage[warp][lane * 8]; //~ data-race
}

__global__ void staged_neighbour(const float *c, float *out)
{
    __shared__ float stage[4][TILE * TILE];
    const int warp = threadIdx.x / 32;
    wmma::fragment<wmma::accumulator, TILE, TILE, TILE, float> acc;
    wmma::load_matrix_sync(acc, c + warp * TILE, 64, wmma::mem_row_major);
    wmma::store_matrix_sync(stage[warp], acc, TILE, wmma::mem_row_major); //~ data-race
    wmma::load_matrix_sync(acc, stage[(warp + 1) % 4], TILE, wmma::mem_row_major); //~ data-race
    wmma::store_matrix_sync(out + blockIdx.x * 64 * TILE + warp * TILE, acc, 64, wmma::mem_row_major);
}
