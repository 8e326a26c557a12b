// `__shfl*_sync` with masks are register exchanges: no memory, no barrier.
// A warp reduction by shuffles, then one lane per warp writes.
//  * warp_sums:        lane 0 of each warp writes its warp's cell: verified.
//  * warp_sums_halves: a 16-lane mask and `lane % 16 == 0` writers: two
//                      lanes of one warp write the same cell: racy.
// syncscope-args: --block-dim 256 --grid-dim 16
// expect-kernel: warp_sums verified
// expect-kernel: warp_sums_halves racy

#define FULL_MASK 0xffffffffu

__global__ void warp_sums(const float *in, float *sums)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float v = in[gid];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    v = __shfl_sync(FULL_MASK, v, 0);
    if (lane == 0)
        sums[gid / 32] = v;
}

__global__ void warp_sums_halves(const float *in, float *sums)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    unsigned half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    float v = in[gid];
    for (int offset = 8; offset > 0; offset /= 2)
        v += __shfl_xor_sync(half, v, offset, 16);
    if (lane % 16 == 0)
        sums[gid / 32] = v; //~ data-race
}
