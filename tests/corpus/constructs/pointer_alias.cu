// Local pointers into shared memory: `p = s + k`, `&s[i]`, and a pointer
// walked with `p++`.  All accesses are resolved to the underlying array.
// syncscope-args: --block-dim 64 --grid-dim 8
// expect-kernel: offset_pointer verified
// expect-kernel: address_of verified
// expect-kernel: walking_pointer verified
// expect-kernel: shifted_alias racy

// p = s + 64 addresses the upper half; the lower half is written through s.
__global__ void offset_pointer(float *out, const float *in)
{
    __shared__ float s[128];
    float *p = s + 64;
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    s[tid] = in[gid];
    p[tid] = 2.0f * in[gid];
    __syncthreads();
    out[gid] = p[63 - tid] - s[63 - tid];
}

// q = &s[tid]: each thread writes its own cell through the pointer.
__global__ void address_of(int *out, const int *in)
{
    __shared__ int s[64];
    int tid = threadIdx.x;
    int *q = &s[tid];

    *q = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[(tid + 1) % 64];
}

// Each thread owns four consecutive cells and clears them with p++.
__global__ void walking_pointer(float *out, const float *in)
{
    __shared__ float s[256];
    int tid = threadIdx.x;
    float *p = &s[tid * 4];

    for (int k = 0; k < 4; k++) {
        *p = in[(blockIdx.x * blockDim.x + tid) * 4 + k];
        p++;
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[255 - tid];
}

// p = s + 1 aliases s shifted by one: thread t writes s[t + 1] through p while
// thread t + 1 reads s[t + 1] directly, in the same barrier interval.
__global__ void shifted_alias(float *out, const float *in)
{
    __shared__ float s[65];
    float *p = s + 1;
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    s[tid] = in[gid];
    __syncthreads();
    p[tid] = s[tid] * 0.5f; //~ data-race
    __syncthreads();
    out[gid] = s[tid];
}
