// Pointers chosen among several arrays: `c ? a : b`, or assigned on the
// branches of an `if`, offsets applied afterwards. An access through such
// a pointer is an access of each array under the condition that the
// pointer points into it, so a race is found through the one array it
// happens in, and arrays no two threads share verify.
//  * halves_ternary:       the first half of the block writes `lo`, the
//                          second `hi`, each thread its own cell; after a
//                          barrier every thread reads its neighbours:
//                          verified.
//  * halves_ternary_crowded: the second half writes `hi` at `t / 2`, two
//                          threads per cell: racy, through `hi` only.
//  * blocks_if_else:       even blocks write `ea`, odd blocks `ob`, each
//                          block its own row of its array: verified.
//  * blocks_if_else_same_row: every block writes row 0 of the array it
//                          chose: blocks 0 and 2 collide in `ea`: racy.
//  * warp_streams:         warps 0-1 stream into `outa`, warps 2-3 into
//                          `outb`, the pointer advanced in a loop and
//                          written through a 16-byte view: verified.
//  * warp_streams_overlap: warps 0 and 1 stream into the same cells of
//                          `outa`: racy.
// syncscope-args: --block-dim 128 --grid-dim 4
// expect-kernel: halves_ternary verified
// expect-kernel: halves_ternary_crowded racy
// expect-kernel: blocks_if_else verified
// expect-kernel: blocks_if_else_same_row racy
// expect-kernel: warp_streams verified
// expect-kernel: warp_streams_overlap racy

__global__ void halves_ternary(float *out)
{
    __shared__ float lo[128];
    __shared__ float hi[128];
    const int t = threadIdx.x;
    float *mine = (t < 64) ? lo : hi;
    mine[t] = 2.0f * t;
    __syncthreads();
    out[blockIdx.x * 128 + t] = lo[(t + 1) % 128] + hi[(t + 127) % 128];
}

__global__ void halves_ternary_crowded(float *out)
{
    __shared__ float lo[128];
    __shared__ float hi[128];
    const int t = threadIdx.x;
    float *mine = (t < 64) ? lo : hi;
    const int cell = (t < 64) ? t : t / 2;
    mine[cell] = 2.0f * t; //~ data-race
    __syncthreads();
    out[blockIdx.x * 128 + t] = lo[(t + 1) % 128] + hi[(t + 127) % 128];
}

__global__ void blocks_if_else(int *ea, int *ob)
{
    int *row;
    if (blockIdx.x % 2 == 0) {
        row = ea;
    } else {
        row = ob;
    }
    row += (blockIdx.x / 2) * blockDim.x;
    row[threadIdx.x] = threadIdx.x;
}

__global__ void blocks_if_else_same_row(int *ea, int *ob)
{
    int *row;
    if (blockIdx.x % 2 == 0) {
        row = ea;
    } else {
        row = ob;
    }
    row[threadIdx.x] = blockIdx.x; //~ data-race
}

__global__ void warp_streams(int *outa, int *outb)
{
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    int *dst = (warp < 2) ? outa + blockIdx.x * 1024 : outb + blockIdx.x * 1024;
    int4 *chunk = (int4 *)(dst + (warp % 2) * 128) + lane;
    for (int i = 0; i < 4; i++) {
        *chunk = make_int4(i, i, i, i);
        chunk += 64;
    }
}

__global__ void warp_streams_overlap(int *outa, int *outb)
{
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    int *dst = (warp < 2) ? outa + blockIdx.x * 1024 : outb + blockIdx.x * 1024;
    int4 *chunk = (int4 *)dst + lane;
    for (int i = 0; i < 4; i++) {
        *chunk = make_int4(i, i, i, warp); //~ data-race
        chunk += 64;
    }
}
