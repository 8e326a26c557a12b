// 2-D heat equation steps with a shared halo tile, and a 3-D stencil that
// marches along z. Macros SIDX and the tile sizes come from stencil.cuh
// (-I include in compile_commands.json).
#include "physics/stencil.cuh"

// expect-kernel: heat_step verified
// expect-kernel: heat_step_no_halo_sync racy
// expect-kernel: jacobi_1d verified
// expect-kernel: stencil_z_march verified

__global__ void heat_step(const real* u, real* v, int nx, int ny) {
    __shared__ real s[(NY_TILE + 2) * HALO_W];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * NX_TILE + tx;
    int y = blockIdx.y * NY_TILE + ty;
    bool inside = x < nx && y < ny;
    s[SIDX(ty + 1, tx + 1)] = inside ? u[y * nx + x] : 0;
    if (tx == 0) s[SIDX(ty + 1, 0)] = (x > 0 && y < ny) ? u[y * nx + x - 1] : 0;
    if (tx == NX_TILE - 1) s[SIDX(ty + 1, NX_TILE + 1)] = (x + 1 < nx && y < ny) ? u[y * nx + x + 1] : 0;
    if (ty == 0) s[SIDX(0, tx + 1)] = (y > 0 && x < nx) ? u[(y - 1) * nx + x] : 0;
    if (ty == NY_TILE - 1) s[SIDX(NY_TILE + 1, tx + 1)] = (y + 1 < ny && x < nx) ? u[(y + 1) * nx + x] : 0;
    __syncthreads();
    if (inside) {
        real c = s[SIDX(ty + 1, tx + 1)];
        real lap = s[SIDX(ty, tx + 1)] + s[SIDX(ty + 2, tx + 1)] + s[SIDX(ty + 1, tx)] +
                   s[SIDX(ty + 1, tx + 2)] - 4 * c;
        v[y * nx + x] = c + kAlpha * lap;
    }
}

// The halo loads are not ordered before the neighbour reads.
__global__ void heat_step_no_halo_sync(const real* u, real* v, int nx, int ny) {
    __shared__ real s[(NY_TILE + 2) * HALO_W];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * NX_TILE + tx;
    int y = blockIdx.y * NY_TILE + ty;
    bool inside = x < nx && y < ny;
    s[SIDX(ty + 1, tx + 1)] = inside ? u[y * nx + x] : 0;
    if (inside) {
        real c = s[SIDX(ty + 1, tx + 1)];
        real lap = s[SIDX(ty, tx + 1)] + s[SIDX(ty + 2, tx + 1)] + s[SIDX(ty + 1, tx)] +
                   s[SIDX(ty + 1, tx + 2)] - 4 * c;
        v[y * nx + x] = c + kAlpha * lap;
    }
}

__global__ void jacobi_1d(const real* in, real* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) {
        out[i] = 0.5f * (in[i - 1] + in[i + 1]);
    }
}

// One xy plane of the block in shared memory at a time; z is marched.
__global__ void stencil_z_march(const real* u, real* v, int nx, int ny, int nz) {
    __shared__ real plane[NY_TILE][NX_TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * NX_TILE + tx;
    int y = blockIdx.y * NY_TILE + ty;
    bool inside = x < nx && y < ny;
    real below = 0;
    real here = inside ? u[y * nx + x] : 0;
    for (int z = 1; z < nz - 1; ++z) {
        real above = inside ? u[((z + 1) * ny + y) * nx + x] : 0;
        plane[ty][tx] = here;
        __syncthreads();
        real side = 0;
        if (tx > 0) side += plane[ty][tx - 1];
        if (tx < NX_TILE - 1) side += plane[ty][tx + 1];
        if (ty > 0) side += plane[ty - 1][tx];
        if (ty < NY_TILE - 1) side += plane[ty + 1][tx];
        if (inside) {
            v[(z * ny + y) * nx + x] = here + kAlpha * (side + below + above - 6 * here);
        }
        __syncthreads();
        below = here;
        here = above;
    }
}
