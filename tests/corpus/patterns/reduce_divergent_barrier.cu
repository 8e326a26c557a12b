// Sequential-addressing reduction with the barrier moved inside `if (tid < s)`
// -- only the active threads wait, the others skip it: barrier divergence.
// An iteration that skips the barrier joins the intervals around it, so
// between two threads that both pass the barrier of a step the barrier still
// orders the steps; the divergence is the finding (status divergent).
// syncscope-args: --block-dim 256 --grid-dim 64
// expect-kernel: reduce_barrier_in_branch divergent

__global__ void reduce_barrier_in_branch(float *out, const float *in)
{
    __shared__ float sdata[256];
    unsigned int tid = threadIdx.x;

    sdata[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
            __syncthreads(); //~ barrier-divergence
        }
    }

    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
