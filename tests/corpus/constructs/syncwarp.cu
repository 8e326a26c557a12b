// __syncwarp() orders the threads of one warp (32 consecutive thread ids).
// Each thread publishes a value and reads the value of the next lane of its
// own warp.  With __syncwarp() between the write and the read the exchange is
// verified; without it lane l+1 may still be writing while lane l reads.
// (No --warp-sync: threads of a warp are NOT assumed to run in lockstep.)
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: rotate_lanes verified
// expect-kernel: rotate_lanes_unsynced racy

__global__ void rotate_lanes(int *out, const int *in)
{
    __shared__ int s[128];
    int tid = threadIdx.x;
    int lane = tid % 32;
    int base = tid - lane;
    int gid = blockIdx.x * blockDim.x + tid;

    s[tid] = in[gid];
    __syncwarp();
    out[gid] = s[base + (lane + 1) % 32];
}

__global__ void rotate_lanes_unsynced(int *out, const int *in)
{
    __shared__ int s[128];
    int tid = threadIdx.x;
    int lane = tid % 32;
    int base = tid - lane;
    int gid = blockIdx.x * blockDim.x + tid;

    s[tid] = in[gid]; //~ data-race
    out[gid] = s[base + (lane + 1) % 32]; //~ data-race
}
