// Faial Claim 1, Test 5 "read-index" (racy): the index of a shared-memory
// write is a value read from global memory.  Syncscope treats values read
// from memory as arbitrary and possibly different per thread, so two threads
// may read the same `x` and scatter into the same cell.
// Witness: two threads of one block, index = the common value of idx[...].
// syncscope-args: --block-dim 256 --grid-dim 4
// expect-kernel: read_index_racy racy

__global__ void read_index_racy(float *out, const float *in, const int *idx)
{
    __shared__ float s[256];
    const int tid = threadIdx.x;
    const int gid = blockIdx.x * blockDim.x + tid;

    int x = idx[gid];
    if (x >= 0 && x < 256)
        s[x] = in[gid]; //~ data-race
    __syncthreads();
    out[gid] = s[tid];
}
