// syncscope-args: --block-dim 64 --grid-dim 1
// CUDA's vector constructors (`make_float2`, `make_uint4`) and the overloads
// the SDK's helper_math.h adds (`make_float4(float3 v, float w)`) take their
// arguments by value: a memory cell passed to one is read, never written,
// even where the file has no declaration of the constructor.
// expect-kernel: widen_own_cell verified
// expect-kernel: pair_own_cells verified
// expect-kernel: pair_neighbour_cell racy

__global__ void widen_own_cell(float4* out, const float3* in) {
    __shared__ float3 tile[64];
    tile[threadIdx.x] = in[threadIdx.x];
    __syncthreads(); //~ redundant-barrier
    out[threadIdx.x] = make_float4(tile[threadIdx.x], 1.0f);
}

__global__ void pair_own_cells(float2* out, const float* in) {
    __shared__ float tile[128];
    tile[2 * threadIdx.x] = in[2 * threadIdx.x];
    tile[2 * threadIdx.x + 1] = in[2 * threadIdx.x + 1];
    __syncthreads(); //~ redundant-barrier
    out[threadIdx.x] = make_float2(tile[2 * threadIdx.x], tile[2 * threadIdx.x + 1]);
}

// The neighbour's cell is read while the neighbour writes it.
__global__ void pair_neighbour_cell(float2* out, const float* in) {
    __shared__ float tile[65];
    tile[threadIdx.x] = in[threadIdx.x]; //~ data-race
    out[threadIdx.x] = make_float2(tile[threadIdx.x], tile[threadIdx.x + 1]); //~ data-race
}
