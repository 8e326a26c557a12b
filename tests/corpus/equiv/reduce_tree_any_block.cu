// The tree of reduce_tree_dyn.cu for a block of any size: no power-of-two
// precondition (its other preconditions kept, `n >= 0` among them). Against
// the serial sum it is equivalent exactly when blockDim.x is a power of two:
// on 3 threads the halving stride starts at 1, adds cell 1 into cell 0
// and stops, losing cell 2. `equiv --assoc` answers the conditional
// equivalence: proved under the condition, a difference outside it.
// expect-kernel: block_sum verified
__global__ void block_sum(float *out, const float *in, int n) {
    __requires(blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1 && n >= 0);
    extern __shared__ float s[];
    unsigned int tid = threadIdx.x;
    unsigned int g = blockIdx.x * blockDim.x + tid;
    s[tid] = g < n ? in[g] : 0.0f;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            s[tid] += s[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = s[0];
    }
}
