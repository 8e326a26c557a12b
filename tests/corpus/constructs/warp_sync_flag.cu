// --warp-sync selects the legacy lockstep model: statements of one warp run
// in order for all its threads.  The lane rotation of syncwarp.cu then needs
// no __syncwarp() (verified), but threads of DIFFERENT warps are still
// unordered: `rotate_across_warps` reads the next warp's cell (racy:
// thread 31 reads s[32] while thread 32 writes it).
// syncscope-args: --block-dim 128 --grid-dim 8 --warp-sync
// expect-kernel: rotate_lanes_lockstep verified
// expect-kernel: rotate_across_warps racy

__global__ void rotate_lanes_lockstep(int *out, const int *in)
{
    __shared__ int s[128];
    int tid = threadIdx.x;
    int lane = tid % 32;
    int base = tid - lane;
    int gid = blockIdx.x * blockDim.x + tid;

    s[tid] = in[gid];
    out[gid] = s[base + (lane + 1) % 32];
}

__global__ void rotate_across_warps(int *out, const int *in)
{
    __shared__ int s[128];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    s[tid] = in[gid]; //~ data-race
    out[gid] = s[(tid + 1) % 128]; //~ data-race
}
