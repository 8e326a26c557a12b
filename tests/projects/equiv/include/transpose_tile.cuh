// The tile of the two transposes in ../src, found only through -I: without
// it neither file is the program its build compiles.
#pragma once
#define TILE 16
#define TILE_PITCH (TILE + 1)
