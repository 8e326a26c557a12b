// Host code of constant_inputs/far.cu, in a unit of its own.
#include <cuda_runtime.h>

__constant__ int c_far;

__global__ void far_cells(int *cells);

void fill_far(int *cells)
{
    int far = 2;
    cudaMemcpyToSymbol(c_far, &far, sizeof(int));
    far_cells<<<1, 64>>>(cells);
}
