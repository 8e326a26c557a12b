// Hillis-Steele inclusive scan with double buffering.  To keep the buffer
// choice syntactic, each loop iteration does two steps: A -> B with offset
// `offset`, then B -> A with offset `2 * offset` (offset = 1, 4, 16, 64
// covers all 256 elements).  Each step reads only the buffer it does not
// write; both barriers are needed.
// syncscope-args: --block-dim 256 --grid-dim 32
// expect-kernel: scan_double_buffer verified

__global__ void scan_double_buffer(float *out, const float *in)
{
    __shared__ float A[256];
    __shared__ float B[256];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    A[tid] = in[gid];
    __syncthreads();
    for (int offset = 1; offset < 256; offset *= 4) {
        B[tid] = tid >= offset ? A[tid] + A[tid - offset] : A[tid];
        __syncthreads();
        A[tid] = tid >= 2 * offset ? B[tid] + B[tid - 2 * offset] : B[tid];
        __syncthreads();
    }
    out[gid] = A[tid];
}
