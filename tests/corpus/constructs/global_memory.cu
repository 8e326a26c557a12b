// Global memory through pointer parameters.  Distinct parameters are assumed
// not to alias.  `shift_in_place` reads the right neighbour of the cell it
// writes in the same array: within a block thread t reads data[g+1] while
// thread t+1 writes it, and across blocks the last thread of block b reads
// the first cell of block b+1 (racy).  `one_cell` has every thread of the
// grid write out[0] (racy across blocks and within them).
// syncscope-args: --block-dim 256 --grid-dim 64
// expect-kernel: stencil_out_of_place verified
// expect-kernel: shift_in_place racy
// expect-kernel: one_cell racy

__global__ void stencil_out_of_place(float *out, const float *in)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    out[g] = in[g] + in[g + 1];
}

__global__ void shift_in_place(float *data)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    data[g] = data[g + 1]; //~ data-race
}

__global__ void one_cell(float *out, const float *in)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    out[0] = in[g]; //~ data-race
}
