// Kernels over pitched rows whose pitch is a global filled by
// `cudaMallocPitch` in another file (alloc.cpp), at least the `COLS`
// cells asked for: a block of `COLS` threads per row stays inside its row
// (race-free). `shift_wide` runs twice as many threads per row as the
// allocation's width (the rows overlap when the pitch is just that
// width: racy); `shift_halved` reads a pitch alloc.cpp also halves
// (nothing bound: racy).
// expect-kernel: shift verified
// expect-kernel: shift_wide racy
// expect-kernel: shift_halved racy
#include "cells.h"

extern size_t field_pitch;
extern size_t wide_pitch;
extern size_t halved_pitch;

__global__ void shift(cell *f, size_t pitch, float dx)
{
    cell *row = (cell *)((char *)f + blockIdx.x * pitch);
    row[threadIdx.x].x += dx;
}

__global__ void shift_wide(cell *f, size_t pitch, float dx)
{
    cell *row = (cell *)((char *)f + blockIdx.x * pitch);
    row[threadIdx.x].x += dx; //~ data-race
}

__global__ void shift_halved(cell *f, size_t pitch, float dx)
{
    cell *row = (cell *)((char *)f + blockIdx.x * pitch);
    row[threadIdx.x].x += dx; //~ data-race
}

void step(cell *f, cell *w, cell *h, int rows, float dx)
{
    shift<<<rows, COLS>>>(f, field_pitch, dx);
    shift_wide<<<rows, 2 * COLS>>>(w, wide_pitch, dx);
    shift_halved<<<rows, COLS>>>(h, halved_pitch, dx);
}
