// Compound assignment and ++/-- are a read and a write of the same cell.
// On the thread's own cell they are harmless (verified); reading the
// neighbour's cell in the same statement that writes one's own races:
// thread t reads s[t + 1] while thread t + 1 writes it.
// syncscope-args: --block-dim 64 --grid-dim 8
// expect-kernel: own_cell_updates verified
// expect-kernel: neighbour_accumulate racy

__global__ void own_cell_updates(int *out, const int *in)
{
    __shared__ int s[64];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    s[tid] = in[gid];
    s[tid] *= 3;
    s[tid]++;
    --s[tid];
    s[tid] <<= 1;
    __syncthreads();
    out[gid] = s[63 - tid];
}

__global__ void neighbour_accumulate(int *out, const int *in)
{
    __shared__ int s[65];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    s[tid] = in[gid];
    if (tid == 0)
        s[64] = 0;
    __syncthreads();
    s[tid] += s[tid + 1]; //~ data-race
    __syncthreads();
    out[gid] = s[63 - tid];
}
