// `__syncwarp(mask)` orders only the lanes in its mask, and only among
// themselves (issue 26, hole 4). Two half-warp syncs, `0x0000ffff` for
// lanes 0-15 and `0xffff0000` for lanes 16-31, never order a lane of one
// half with a lane of the other, and a mask computed at run time joins only
// the lanes it names. The model does not follow which lanes a partial mask
// joins, so such a kernel is not-verified, naming the call, and claims no
// redundant barrier; a full mask (or none) is the whole warp.
//  * halves_partner:       each lane reads its partner in its own half
//                          after the half's sync (race-free, but the model
//                          cannot show it): not-verified.
//  * halves_across:        each lane reads the lane 16 away, in the other
//                          half, which the half-warp syncs do not order:
//                          not-verified (was verified).
//  * halves_then_block:    the same read after a `__syncthreads()` that
//                          follows the half-warp syncs: the block barrier
//                          is the one that orders it, never redundant
//                          (was called redundant): not-verified.
//  * ballot_mask:          a mask of the lanes with a positive input, from
//                          `__ballot_sync`, synced by those lanes only
//                          (a partner outside it wrote nothing): not-verified.
//  * ballot_mask_racy:     the same mask and a read of the other warp's
//                          cell before any barrier: racy (a race found in spite of the
//                          partial sync is real).
//  * full_mask_literal:    `__syncwarp(0xffffffff)` is `__syncwarp()`:
//                          verified.
// syncscope-args: --block-dim 64 --grid-dim 4
// expect-kernel: halves_partner not-verified
// expect-kernel: halves_across not-verified
// expect-kernel: halves_then_block not-verified
// expect-kernel: ballot_mask not-verified
// expect-kernel: ballot_mask_racy racy
// expect-kernel: full_mask_literal verified

#define FULL_MASK 0xffffffffu

__global__ void halves_partner(int *out, const int *in)
{
    __shared__ int s[64];
    const int t = threadIdx.x;
    const int lane = t % 32;
    s[t] = in[blockIdx.x * 64 + t];
    if (lane < 16)
        __syncwarp(0x0000ffff); //~ not-verified
    else
        __syncwarp(0xffff0000); //~ not-verified
    out[blockIdx.x * 64 + t] = s[t ^ 1];
}

__global__ void halves_across(int *out, const int *in)
{
    __shared__ int s[64];
    const int t = threadIdx.x;
    const int lane = t % 32;
    s[t] = in[blockIdx.x * 64 + t];
    if (lane < 16)
        __syncwarp(0x0000ffff); //~ not-verified
    else
        __syncwarp(0xffff0000); //~ not-verified
    out[blockIdx.x * 64 + t] = s[t ^ 16];
}

__global__ void halves_then_block(int *out, const int *in)
{
    __shared__ int s[64];
    const int t = threadIdx.x;
    const int lane = t % 32;
    s[t] = in[blockIdx.x * 64 + t];
    if (lane < 16)
        __syncwarp(0x0000ffff); //~ not-verified
    else
        __syncwarp(0xffff0000); //~ not-verified
    __syncthreads();
    out[blockIdx.x * 64 + t] = s[t ^ 16];
}

__global__ void ballot_mask(int *out, const int *in)
{
    __shared__ int s[64];
    const int t = threadIdx.x;
    const int v = in[blockIdx.x * 64 + t];
    const unsigned active = __ballot_sync(FULL_MASK, v > 0);
    if (v > 0) {
        s[t] = v;
        __syncwarp(active); //~ not-verified
        out[blockIdx.x * 64 + t] = s[t ^ 1];
    }
}

__global__ void ballot_mask_racy(int *out, const int *in)
{
    __shared__ int s[64];
    const int t = threadIdx.x;
    const int v = in[blockIdx.x * 64 + t];
    const unsigned active = __ballot_sync(FULL_MASK, v > 0);
    s[t] = v; //~ data-race
    const int other = s[(t + 32) % 64]; //~ data-race
    if (v > 0) {
        __syncwarp(active); //~ not-verified
        out[blockIdx.x * 64 + t] = other;
    }
}

__global__ void full_mask_literal(int *out, const int *in)
{
    __shared__ int s[64];
    const int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncwarp(FULL_MASK);
    out[blockIdx.x * 64 + t] = s[t ^ 1];
}
