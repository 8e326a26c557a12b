// Found by the differential test (tests/differential.rs): a barrier inside a
// block-uniform branch separates the read before the branch from the write
// after the barrier, because every thread of a block takes the branch or
// none does. The intervals used to let the read meet the write as if the
// reading thread had skipped the branch, and the solver's spurious witness
// (it did not replay) came out as `unknown`. With global memory the same
// pair races across blocks, which the spurious same-block pair used to hide.
// syncscope-args: --grid-dim 2
// expect-kernel: uniform_branch_shared verified
// expect-kernel: uniform_branch_global racy

__global__ void uniform_branch_shared(int *out)
{
    __shared__ int s[1024];
    int v = s[3];
    if (blockIdx.x != 1) {
        __syncthreads();
        s[threadIdx.x] = v;
    }
}

__global__ void uniform_branch_global(int *g)
{
    int v = g[3]; //~ data-race
    if (blockIdx.x != 1) {
        __syncthreads();
        g[threadIdx.x] = v; //~ data-race
    }
}
