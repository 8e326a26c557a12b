// Shared by global_pitch/rows.cu and alloc.cpp: the element of a field
// and the number of elements a row of it holds.
#pragma once
#include <cuda_runtime.h>

#define COLS 64

typedef float2 cell;
