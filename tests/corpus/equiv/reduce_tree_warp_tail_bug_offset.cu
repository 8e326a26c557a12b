// Seeded bug in reduce_tree_warp_tail.cu: each shuffle reads one lane too
// far (`d + 1`): lane 0 adds the registers of lanes 17, 9, 5, 3 and 2,
// and its result is no longer the sum of the warp.
#define BLOCK 256
// expect-kernel: block_sum verified
__global__ void block_sum(float *out, const float *in, int n) {
    __requires(blockDim.x == BLOCK && blockDim.y == 1 && blockDim.z == 1);
    __requires(gridDim.y == 1 && gridDim.z == 1 && n >= 0);
    __shared__ float s[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int g = blockIdx.x * BLOCK + tid;
    float acc = g < n ? in[g] : 0.0f;
    s[tid] = acc;
    __syncthreads();
    for (unsigned int stride = BLOCK / 2; stride > 32; stride >>= 1) {
        if (tid < stride) {
            s[tid] = acc = acc + s[tid + stride];
        }
        __syncthreads();
    }
    if (tid < 32) {
        acc += s[tid + 32];
        for (int d = 16; d > 0; d /= 2) {
            acc += __shfl_down_sync(0xffffffff, acc, d + 1);
        }
    }
    if (tid == 0) {
        out[blockIdx.x] = acc;
    }
}
