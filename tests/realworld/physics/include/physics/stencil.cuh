// Stencil geometry: a NX_TILE x NY_TILE block updates the interior of a
// (NX_TILE + 2) x (NY_TILE + 2) shared tile.
#ifndef PHYSICS_STENCIL_CUH
#define PHYSICS_STENCIL_CUH

#define NX_TILE 32
#define NY_TILE 8
#define HALO_W (NX_TILE + 2)
#define SIDX(y, x) ((y) * HALO_W + (x))

#ifdef PHYSICS_DOUBLE
typedef double real;
#else
typedef float real;
#endif

static const real kAlpha = 0.1f;

#endif
