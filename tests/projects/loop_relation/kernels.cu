// Kernels launched once per level from host `while` loops (host.cu):
// each thread writes its own cell below `blockDim.x * gridDim.x` and one
// at `half` past it, race-free only when `half` is at least the number of
// threads. The loop keeps that relation between the length it passes and
// the grid it launches when it holds on entry and the body's updates keep
// it (the grid made again from the length, or both halved together):
// verified; so is a grid picked by a conditional in a body that also
// prints in a loop and may `break`. A length shrinking faster than the grid, doubled until it
// wraps, too short on entry, changed through a pointer, or halved on a
// path that `continue`s before the blocks are, or divided by 8 in an
// `else` branch: racy.
// expect-kernel: level_recomputed verified
// expect-kernel: level_halved verified
// expect-kernel: level_quartered racy
// expect-kernel: level_wrapped racy
// expect-kernel: level_short_entry racy
// expect-kernel: level_aliased racy
// expect-kernel: level_capped verified
// expect-kernel: level_skipping racy
// expect-kernel: level_last_levels racy

__global__ void level_recomputed(float *out, unsigned half)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    out[gid] = 1.0f;
    out[gid + half] = 2.0f;
}

__global__ void level_halved(float *out, unsigned half)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    out[gid] = 1.0f;
    out[gid + half] = 2.0f;
}

__global__ void level_quartered(float *out, unsigned half)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    out[gid] = 1.0f; //~ data-race
    out[gid + half] = 2.0f;
}

__global__ void level_wrapped(float *out, unsigned half)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    out[gid] = 1.0f; //~ data-race
    out[gid + half] = 2.0f;
}

__global__ void level_short_entry(float *out, unsigned half)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    out[gid] = 1.0f; //~ data-race
    out[gid + half] = 2.0f;
}

__global__ void level_aliased(float *out, unsigned half)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    out[gid] = 1.0f; //~ data-race
    out[gid + half] = 2.0f;
}

__global__ void level_capped(float *out, unsigned half)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    out[gid] = 1.0f;
    out[gid + half] = 2.0f;
}

__global__ void level_skipping(float *out, unsigned half)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    out[gid] = 1.0f; //~ data-race
    out[gid + half] = 2.0f;
}

__global__ void level_last_levels(float *out, unsigned half)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    out[gid] = 1.0f; //~ data-race
    out[gid + half] = 2.0f;
}
