// The last-warp reduction made correct for independent thread scheduling:
// every step reads into a register, __syncwarp(), writes, __syncwarp().
// The first step needs no __syncwarp() between its read (cells 32..63) and
// its write (cells 0..31); every other __syncwarp() is needed.  The final
// read of sm[0] by lane 0 follows lane 0's own last write.
// syncscope-args: --block-dim 256 --grid-dim 64
// expect-kernel: reduce_warp_syncwarp verified

__global__ void reduce_warp_syncwarp(int *out, const int *in)
{
    __shared__ int sdata[256];
    unsigned int tid = threadIdx.x;

    sdata[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid < 32) {
        int v = sdata[tid] + sdata[tid + 32];
        sdata[tid] = v;
        __syncwarp();
        v += sdata[tid + 16];
        __syncwarp();
        sdata[tid] = v;
        __syncwarp();
        v += sdata[tid + 8];
        __syncwarp();
        sdata[tid] = v;
        __syncwarp();
        v += sdata[tid + 4];
        __syncwarp();
        sdata[tid] = v;
        __syncwarp();
        v += sdata[tid + 2];
        __syncwarp();
        sdata[tid] = v;
        __syncwarp();
        v += sdata[tid + 1];
        __syncwarp();
        sdata[tid] = v;
    }

    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
