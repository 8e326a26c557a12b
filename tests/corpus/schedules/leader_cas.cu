// Issue 15: the first thread whose `atomicCAS` finds the slot empty
// claims it with its own index, so which index stays depends on the
// schedule (found). A CAS whose operands every thread shares
// (`atomicCAS(&done, 0, 1)`, result unused) is the same function for all
// threads: the flag ends set in every order (no finding).
// syncscope-args: --deterministic --block-dim 128 --grid-dim 4
// expect-kernel: elect_owner verified
// expect-kernel: raise_done_flag verified

__global__ void elect_owner(int *owner_out)
{
    __shared__ int owner;
    if (threadIdx.x == 0)
        owner = -1;
    __syncthreads();
    atomicCAS(&owner, -1, (int)threadIdx.x); //~ schedule-dependent
    __syncthreads();
    if (threadIdx.x == 0)
        owner_out[blockIdx.x] = owner;
}

__global__ void raise_done_flag(int *done, const int *work, int *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = work[i] + 1;
    atomicCAS(&done[blockIdx.x], 0, 1);
}
