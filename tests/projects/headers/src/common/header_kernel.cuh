// A header meant to be included after tile.cuh (it uses TILE without
// including it): alone, TILE is unknown and whether `s[t % TILE]` collides
// depends on it (not verified); in the context of tiles.cu (TILE = 16, 16
// threads) it does not.
#pragma once

__global__ void header_kernel(float* data) {
    __shared__ float s[64];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    s[t % TILE] = data[g];
    __syncthreads();
    data[g] = s[(t + 1) % TILE];
}
