// Host loop of the simulation.
#include <cuda_runtime.h>
#include "physics/stencil.cuh"
#include "physics/particles.cuh"

__global__ void heat_step(const real* u, real* v, int nx, int ny);
__global__ void heat_step_no_halo_sync(const real* u, real* v, int nx, int ny);
__global__ void jacobi_1d(const real* in, real* out, int n);
__global__ void stencil_z_march(const real* u, real* v, int nx, int ny, int nz);
__global__ void integrate(float4* pos, const float4* vel, float dt, int n);
__global__ void count_cells(const float4* pos, unsigned int* counts, int n);
__global__ void jitter(float4* pos, unsigned long long seed, int n);
__global__ void to_half(const float* in, __half* out, int n);

void step(real* u, real* v, int nx, int ny, int nz, float4* pos, float4* vel, unsigned int* counts,
          int n, int threads) {
    dim3 block(NX_TILE, NY_TILE);
    dim3 grid((nx + NX_TILE - 1) / NX_TILE, (ny + NY_TILE - 1) / NY_TILE);
    heat_step<<<grid, block>>>(u, v, nx, ny);
    heat_step_no_halo_sync<<<grid, block>>>(u, v, nx, ny);
    jacobi_1d<<<(nx + 255) / 256, 256>>>(u, v, nx);
    stencil_z_march<<<grid, block>>>(u, v, nx, ny, nz);
    int blocks = (n + threads - 1) / threads;
    integrate<<<blocks, threads>>>(pos, vel, 0.01f, n);
    count_cells<<<blocks, threads>>>(pos, counts, n);
    jitter<<<blocks, threads>>>(pos, 1234ull, n);
}
