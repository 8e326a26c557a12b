// Kernels loaded by name through the driver API (host.cpp), each block
// writing one row of `width` cells with its `blockDim.x` threads. The
// block size comes from a helper's out-parameter, one value from then on;
// the width is a macro over it (`ROW_WIDTH`: twice the block, each row
// holds its block: race-free; `HALF_WIDTH`: half the block, a row's last
// threads write the next row's first cells: racy).
// expect-kernel: spread verified
// expect-kernel: spread_half racy

extern "C" __global__ void spread(float *out, size_t width)
{
    out[blockIdx.x * width + threadIdx.x] = (float)threadIdx.x;
}

extern "C" __global__ void spread_half(float *out, size_t width)
{
    out[blockIdx.x * width + threadIdx.x] = (float)threadIdx.x; //~ data-race
}
