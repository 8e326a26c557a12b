// `__syncwarp(mask)` orders only the lanes in its mask, and only among
// themselves (issue 26, hole 4). A constant mask of one aligned group of
// lanes (`0x0000ffff` for lanes 0-15, `0xffff0000` for lanes 16-31, `0xff`
// ...) is the barrier of a tile of that width: it orders two lanes of the
// group, never a lane of one group with a lane of another, every lane of
// the group must reach it (divergence), and only lanes of the group may
// call it (checked like an assertion: a lane outside the mask calling it is
// undefined behaviour). Any other partial mask, such as one computed at run
// time, is not-verified, naming the call, and claims no redundant barrier.
// A full mask (or none) is the whole warp.
//  * halves_partner:    each half syncs with its own mask, each lane reads
//                       its partner in its half: verified.
//  * halves_across:     each lane reads the lane 16 away, in the other
//                       half, which the half-warp syncs do not order: racy
//                       (was verified).
//  * halves_then_block: partners read after the half-warp syncs, then the
//                       lane 16 away after a `__syncthreads()`: verified,
//                       and the block barrier is needed (it was called
//                       redundant).
//  * half_mask_for_all: every lane calls `__syncwarp(0x0000ffff)`: lanes
//                       16-31 are not in the mask (assertion).
//  * half_mask_short:   only lanes 0-7 call `__syncwarp(0x0000ffff)`:
//                       lanes 8-15 never arrive (divergent).
//  * mixed_widths:      a half-warp sync and a whole-warp sync in one
//                       kernel: not-verified (one group width per kernel),
//                       never divergent.
//  * ballot_mask:       a mask of the lanes with a positive input, from
//                       `__ballot_sync`, synced by those lanes only (a
//                       partner outside it wrote nothing): not-verified.
//  * ballot_mask_racy:  the same mask and a read of the other warp's cell
//                       before any barrier: racy (a race found in spite of
//                       the partial sync is real).
//  * full_mask_literal: `__syncwarp(0xffffffff)` is `__syncwarp()`:
//                       verified.
// syncscope-args: --block-dim 64 --grid-dim 4
// expect-kernel: halves_partner verified
// expect-kernel: halves_across racy
// expect-kernel: halves_then_block verified
// expect-kernel: half_mask_for_all assertion-failed
// expect-kernel: half_mask_short divergent
// expect-kernel: mixed_widths not-verified
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
        __syncwarp(0x0000ffff);
    else
        __syncwarp(0xffff0000);
    out[blockIdx.x * 64 + t] = s[t ^ 1];
}

__global__ void halves_across(int *out, const int *in)
{
    __shared__ int s[64];
    const int t = threadIdx.x;
    const int lane = t % 32;
    s[t] = in[blockIdx.x * 64 + t]; //~ data-race
    if (lane < 16)
        __syncwarp(0x0000ffff);
    else
        __syncwarp(0xffff0000);
    out[blockIdx.x * 64 + t] = s[t ^ 16]; //~ data-race
}

__global__ void halves_then_block(int *out, const int *in)
{
    __shared__ int s[64];
    const int t = threadIdx.x;
    const int lane = t % 32;
    s[t] = in[blockIdx.x * 64 + t];
    if (lane < 16)
        __syncwarp(0x0000ffff);
    else
        __syncwarp(0xffff0000);
    const int partner = s[t ^ 1];
    __syncthreads();
    out[blockIdx.x * 64 + t] = s[t ^ 16] + partner;
}

__global__ void half_mask_for_all(int *out, const int *in)
{
    __shared__ int s[64];
    const int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncwarp(0x0000ffff); //~ assertion
    out[blockIdx.x * 64 + t] = s[t ^ 1];
}

__global__ void half_mask_short(int *out, const int *in)
{
    __shared__ int s[64];
    const int t = threadIdx.x;
    const int lane = t % 32;
    s[t] = in[blockIdx.x * 64 + t];
    if (lane < 8)
        __syncwarp(0x0000ffff); //~ barrier-divergence
    out[blockIdx.x * 64 + t] = s[t];
}

__global__ void mixed_widths(int *out, const int *in)
{
    __shared__ int s[64];
    const int t = threadIdx.x;
    const int lane = t % 32;
    s[t] = in[blockIdx.x * 64 + t];
    if (lane < 16)
        __syncwarp(0x0000ffff);
    const int partner = lane < 16 ? s[t ^ 1] : 0;
    __syncwarp(); //~ not-verified
    out[blockIdx.x * 64 + t] = partner + s[t ^ 16];
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
