// Kernels loaded by name through the CUDA driver API (host.cpp):
// `cuModuleGetFunction(&f, module, "name")` then `cuLaunchKernel(f, gx, gy,
// gz, bx, by, bz, shared, stream, args, extra)`. Each kernel keeps a
// 64-cell shared ring, race-free only under blocks of at most 64 threads
// in one row, or a row width bound through the `args` array.
// expect-kernel: ring_direct verified
// expect-kernel: ring_wide racy
// expect-kernel: ring_table_a verified
// expect-kernel: ring_table_b racy
// expect-kernel: ring_dims verified
// expect-kernel: ring_coop racy
// expect-kernel: rows_bound verified
// expect-kernel: rows_short racy
// expect-kernel: ring_escaped racy
// expect-kernel: ring_out_param verified
#include <cuda_runtime.h>

#define RING 64

// Loaded by a literal name, launched with 64-thread blocks: verified.
extern "C" __global__ void ring_direct(float *out, const float *in)
{
    __shared__ float ring[RING];
    ring[threadIdx.x % RING] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = ring[(threadIdx.x + 1) % RING];
}

// Launched with 128-thread blocks: threads t and t + 64 share a cell.
extern "C" __global__ void ring_wide(float *out, const float *in)
{
    __shared__ float ring[RING];
    ring[threadIdx.x % RING] = in[blockIdx.x * blockDim.x + threadIdx.x]; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = ring[(threadIdx.x + 1) % RING];
}

// Both names sit in one table; the handle loaded from `names[i]` is
// launched under `if (i == 0)` with 64 threads and otherwise with 256:
// each name gets both launches (which one it is, is not read), so
// ring_table_b races under 256 threads, and ring_table_a's ring is
// twice as wide to stay race-free under both.
extern "C" __global__ void ring_table_a(float *out, const float *in)
{
    __shared__ float ring[4 * RING];
    ring[threadIdx.x % (4 * RING)] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = ring[(threadIdx.x + 1) % (4 * RING)];
}

extern "C" __global__ void ring_table_b(float *out, const float *in)
{
    __shared__ float ring[RING];
    ring[threadIdx.x % RING] = in[blockIdx.x * blockDim.x + threadIdx.x]; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = ring[(threadIdx.x + 1) % RING];
}

// Sizes passed as the fields of `dim3` locals (`block.x`, `block.y`); the
// name is one arm of a conditional (ring_direct gets this launch too).
extern "C" __global__ void ring_dims(float *out, const float *in)
{
    __shared__ float ring[RING];
    ring[threadIdx.x % RING] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = ring[(threadIdx.x + 1) % RING];
}

// Launched cooperatively with 96-thread blocks: racy.
extern "C" __global__ void ring_coop(float *out, const float *in)
{
    __shared__ float ring[RING];
    ring[threadIdx.x % RING] = in[blockIdx.x * blockDim.x + threadIdx.x]; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = ring[(threadIdx.x + 1) % RING];
}

// Each block writes `width` cells from `blockIdx.x * width`: race-free
// when `width` is at least the block; bound to 128 through `args`.
extern "C" __global__ void rows_bound(float *out, int width)
{
    out[blockIdx.x * width + threadIdx.x] = (float)blockIdx.x;
}

// The same with `width` bound to 32 under 64-thread blocks: racy.
extern "C" __global__ void rows_short(float *out, int width)
{
    out[blockIdx.x * width + threadIdx.x] = (float)blockIdx.x; //~ data-race
}

// Its handle is stored in a global, launched elsewhere with any size:
// not understood, checked under any launch (racy).
extern "C" __global__ void ring_escaped(float *out, const float *in)
{
    __shared__ float ring[RING];
    ring[threadIdx.x % RING] = in[blockIdx.x * blockDim.x + threadIdx.x]; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = ring[(threadIdx.x + 1) % RING];
}

// Loaded by a helper into its caller's handle (`*out = f;`), launched
// by the caller with 32-thread blocks: verified.
extern "C" __global__ void ring_out_param(float *out, const float *in)
{
    __shared__ float ring[RING];
    ring[threadIdx.x % RING] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = ring[(threadIdx.x + 1) % RING];
}
