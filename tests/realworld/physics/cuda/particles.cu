// Particle kernels: vector types, half precision, curand and a header
// device function mapping positions to cells.
#include "physics/particles.cuh"

// expect-kernel: integrate verified
// expect-kernel: count_cells verified
// expect-kernel: jitter verified
// expect-kernel: to_half verified

__global__ void integrate(float4* pos, const float4* vel, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        pos[i] = advance(pos[i], vel[i], dt);
    }
}

__global__ void count_cells(const float4* pos, unsigned int* counts, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&counts[cell_of(pos[i])], 1u);
    }
}

__global__ void jitter(float4* pos, unsigned long long seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    curandState state;
    curand_init(seed, i, 0, &state);
    float4 p = pos[i];
    p.x += 1e-3f * curand_uniform(&state);
    p.y += 1e-3f * curand_normal(&state);
    pos[i] = p;
}

__global__ void to_half(const float* in, __half* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __float2half(in[i]);
    }
}
