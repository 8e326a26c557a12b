// Reversing a block's segment of global memory in place: thread t reads
// data[n-1-t] while thread n-1-t writes it (racy), versus staging through a
// shared buffer with a barrier (verified), versus reading one array and
// writing another (verified).
// syncscope-args: --block-dim 256 --grid-dim 32
// expect-kernel: reverse_in_place_racy racy
// expect-kernel: reverse_via_shared verified
// expect-kernel: reverse_two_buffers verified

__global__ void reverse_in_place_racy(int *data)
{
    int base = blockIdx.x * blockDim.x;
    int t = threadIdx.x;
    data[base + t] = data[base + blockDim.x - 1 - t]; //~ data-race
}

__global__ void reverse_via_shared(int *data)
{
    __shared__ int s[256];
    int base = blockIdx.x * blockDim.x;
    int t = threadIdx.x;
    s[t] = data[base + t];
    __syncthreads();
    data[base + t] = s[blockDim.x - 1 - t];
}

__global__ void reverse_two_buffers(int *out, const int *in)
{
    int base = blockIdx.x * blockDim.x;
    int t = threadIdx.x;
    out[base + t] = in[base + blockDim.x - 1 - t];
}
