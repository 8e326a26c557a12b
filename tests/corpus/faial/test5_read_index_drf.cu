// Faial Claim 1, Test 5 "read-index" (DRF): the value read from memory is
// used as the index of a READ (a gather), after a barrier that orders all
// writes to the tile.  Reads never race with reads, so whatever idx holds
// the kernel is race-free.
// syncscope-args: --block-dim 256 --grid-dim 4
// expect-kernel: read_index_drf verified

__global__ void read_index_drf(float *out, const float *in, const int *idx)
{
    __shared__ float s[256];
    const int tid = threadIdx.x;
    const int gid = blockIdx.x * blockDim.x + tid;

    s[tid] = in[gid];
    __syncthreads();
    int x = idx[gid];
    float v = 0.0f;
    if (x >= 0 && x < 256)
        v = s[x];
    out[gid] = v;
}
