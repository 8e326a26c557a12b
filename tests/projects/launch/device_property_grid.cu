// A grid sized by a device property (`prop.multiProcessorCount` of a
// `cudaDeviceProp`, an `int` in the CUDA runtime) is a one-dimensional
// grid: blocks differ in blockIdx.x only (`gridDim.y == 1`,
// `gridDim.z == 1` are assumed from the launch, and the exact index rules
// use them).
//  * tile_walk:       a grid-stride walk over tiles placed by dividing a
//                     scaled position, 16-byte chunks per lane: verified
//                     (with a grid of any y, blocks (0,0) and (0,1) would
//                     store the same tiles).
//  * block_rows_same: every block writes row 0: racy.
//  * grid_cells:      a two-dimensional grid (`gridDim.y` set in the host
//                     code, which makes every kernel's grid y symbolic
//                     unless its launch fixes it), one cell per thread:
//                     verified.
// expect-kernel: tile_walk verified
// expect-kernel: block_rows_same racy
// expect-kernel: grid_cells verified

#include <cuda_runtime.h>

__global__ void tile_walk(float *out)
{
    const unsigned warp = threadIdx.x / 32;
    const unsigned lane = threadIdx.x % 32;
    for (unsigned pos = blockIdx.x;; pos += gridDim.x) {
        const unsigned tile_row = ((pos * 4) / 64) * 4;
        const unsigned tile_col = (pos * 4) % 64;
        if (tile_row >= 64) {
            break;
        }
        float *rows = out + (tile_row + warp) * 8 * 2048 + tile_col * 32;
        for (int i = 0; i < 8; i++) {
            *((float4 *)(rows + 2048 * i) + lane) = make_float4(0.0f, 1.0f, 2.0f, (float)i);
        }
    }
}

__global__ void block_rows_same(int *out)
{
    out[threadIdx.x] = blockIdx.x; //~ data-race
}

__global__ void grid_cells(int *cells)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    cells[blockIdx.y * gridDim.x * blockDim.x + x] = x;
}

int main()
{
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    float *tiles;
    int *rows;
    cudaMalloc(&tiles, 512 * 2048 * sizeof(float));
    cudaMalloc(&rows, 128 * sizeof(int));
    tile_walk<<<prop.multiProcessorCount, 128>>>(tiles);
    block_rows_same<<<prop.multiProcessorCount, 128>>>(rows);
    dim3 gridDim;
    gridDim.x = 4;
    gridDim.y = 4;
    grid_cells<<<gridDim, 128>>>(rows);
    cudaDeviceSynchronize();
    return 0;
}
