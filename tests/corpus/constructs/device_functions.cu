// __device__ functions with value, reference and pointer parameters, inlined
// at each call.  `helpers_verified` stores through a pointer helper, updates
// a local through a reference helper and swaps two shared cells it owns
// (verified).  In `helper_collides` the helper writes s[i] with i = tid (its
// own cell) while the kernel reads the neighbour's cell directly in the same
// barrier interval: thread t + 1 writes s[t + 1] inside `put` while thread t
// reads it.  Only the direct read is marked: every race of this kernel pairs
// it with the write inside `put`.
// syncscope-args: --block-dim 64 --grid-dim 8
// expect-kernel: helpers_verified verified
// expect-kernel: helper_collides racy

__device__ void put(float *a, int i, float v)
{
    a[i] = v;
}

__device__ void accumulate(float &acc, float v)
{
    acc += v;
}

__device__ void swap_cells(float *x, float *y)
{
    float t = *x;
    *x = *y;
    *y = t;
}

__global__ void helpers_verified(float *out, const float *in)
{
    __shared__ float s[128];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    put(s, tid, in[gid]);
    put(s, 64 + tid, in[gid] * 2.0f);
    swap_cells(&s[tid], &s[64 + tid]);
    __syncthreads();
    float acc = 0.0f;
    accumulate(acc, s[63 - tid]);
    accumulate(acc, s[127 - tid]);
    out[gid] = acc;
}

__global__ void helper_collides(float *out, const float *in)
{
    __shared__ float s[65];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    put(s, tid, in[gid]);
    float right = s[tid + 1]; //~ data-race
    out[gid] = right;
}
