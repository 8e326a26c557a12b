// Host code of global_pitch/rows.cu: the pitches are globals this file
// fills with `cudaMallocPitch`; rows.cu only reads them.
#include "cells.h"

size_t field_pitch = 0;
size_t wide_pitch = 0;
size_t halved_pitch = 0;

cell *field;
cell *wide;
cell *halved;

void allocate(int rows)
{
    cudaMallocPitch((void **)&field, &field_pitch, COLS * sizeof(cell), rows);
    cudaMallocPitch((void **)&wide, &wide_pitch, COLS * sizeof(cell), rows);
    cudaMallocPitch((void **)&halved, &halved_pitch, COLS * sizeof(cell), rows);
    // Written again: the pitch is no longer what the allocation returned.
    halved_pitch /= 2;
}
