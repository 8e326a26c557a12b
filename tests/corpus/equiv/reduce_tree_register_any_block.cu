// The register-accumulating tree on a block of any size (dynamic shared
// memory, the halving stride from blockDim.x / 2): a sum of the block
// exactly when blockDim.x is a power of two; on 3 threads the last cell
// is never added.
// expect-kernel: block_sum verified
__global__ void block_sum(float *out, const float *in, int n) {
    __requires(blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1 && n >= 0);
    extern __shared__ float s[];
    unsigned int tid = threadIdx.x;
    unsigned int g = blockIdx.x * blockDim.x + tid;
    float acc = g < n ? in[g] : 0.0f;
    s[tid] = acc;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            s[tid] = acc = acc + s[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = acc;
    }
}
