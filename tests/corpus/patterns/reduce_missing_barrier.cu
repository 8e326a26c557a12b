// Sequential-addressing reduction with the barrier of the loop forgotten:
// step s/2 reads sdata[t + s/2] while thread t + s/2 may still be writing it
// in step s.  Witness: two threads of one block and two values of s.
// (The final read of sdata[0] is fine: only thread 0 ever writes cell 0.)
// syncscope-args: --block-dim 256 --grid-dim 64
// expect-kernel: reduce_no_loop_barrier racy

__global__ void reduce_no_loop_barrier(float *out, const float *in)
{
    __shared__ float sdata[256];
    unsigned int tid = threadIdx.x;

    sdata[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s]; //~ data-race
    }

    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
