// Strides a kernel reads from `__constant__` scalars its host code set
// with cudaMemcpyToSymbol just before the launch, in this same unit: the
// copy of a local holding 2 makes `c_step == 2` a launch fact (each thread
// its own cell: verified). A stride copied as 0 puts every thread on cell
// 0 (racy); a symbol the host copies twice (the second copy under a
// condition) and one copied from a local written before the copy give no
// fact (the stride stays unknown: not verified).
// expect-kernel: step_cells verified
// expect-kernel: gap_cells racy
// expect-kernel: span_cells not-verified
// expect-kernel: pitch_cells not-verified
#include <cuda_runtime.h>

__constant__ int c_step;
__constant__ int c_gap;
__constant__ int c_span;
__constant__ unsigned c_pitch;

__global__ void step_cells(int *cells)
{
    cells[threadIdx.x * c_step] = threadIdx.x;
}

__global__ void gap_cells(int *cells)
{
    cells[threadIdx.x * c_gap] = threadIdx.x; //~ data-race
}

__global__ void span_cells(int *cells)
{
    cells[threadIdx.x * c_span] = threadIdx.x; //~ not-verified
}

__global__ void pitch_cells(int *cells)
{
    cells[threadIdx.x * c_pitch] = threadIdx.x; //~ not-verified
}

void fill_cells(int *cells, int wide, unsigned rows)
{
    int step = 2;
    cudaMemcpyToSymbol(c_step, &step, sizeof(int));
    step_cells<<<1, 64>>>(cells);

    int gap = 0;
    cudaMemcpyToSymbol(c_gap, &gap, sizeof(gap));
    gap_cells<<<1, 64>>>(cells);

    int span = 1;
    cudaMemcpyToSymbol(c_span, &span, sizeof(int));
    if (wide == 0) {
        cudaMemcpyToSymbol(c_span, &wide, sizeof(int));
    }
    span_cells<<<1, 64>>>(cells);

    unsigned pitch = 1;
    pitch = rows;
    cudaMemcpyToSymbol(c_pitch, &pitch, sizeof(unsigned));
    pitch_cells<<<1, 64>>>(cells);
}
