// Tree folds whose pairs are disjoint only in a power-of-two block: each
// step pairs (pos, pos + half) with pos = 2 * t - (t & (half - 1)), which
// covers the block once when `half` (halved from blockDim.x / 2) is a
// power of two. Their host code (host.cu) rounds the block size up with
// helpers: a loop doubling from 1 while below the count, the bit smear
// `x |= x >> 1; .. x |= x >> 16; return x + 1;`, and `1u << k`; each
// returns a power of two, so the block is one at every launch. A helper
// rounding up to a multiple of 32 does not (96 threads: racy).
// expect-kernel: fold_doubled verified
// expect-kernel: fold_smeared verified
// expect-kernel: fold_shifted verified
// expect-kernel: fold_rounded racy

__global__ void fold_doubled(float *sums, const float *in)
{
    extern __shared__ float part[];
    unsigned t = threadIdx.x;
    part[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
        if (t < blockDim.x / 2) {
            unsigned pos = 2 * t - (t & (half - 1));
            part[pos] = part[pos] + part[pos + half];
        }
        __syncthreads();
    }
    if (t == 0) {
        sums[blockIdx.x] = part[0];
    }
}

__global__ void fold_smeared(float *sums, const float *in)
{
    extern __shared__ float part[];
    unsigned t = threadIdx.x;
    part[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
        if (t < blockDim.x / 2) {
            unsigned pos = 2 * t - (t & (half - 1));
            part[pos] = part[pos] + part[pos + half];
        }
        __syncthreads();
    }
    if (t == 0) {
        sums[blockIdx.x] = part[0];
    }
}

__global__ void fold_shifted(float *sums, const float *in)
{
    extern __shared__ float part[];
    unsigned t = threadIdx.x;
    part[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
        if (t < blockDim.x / 2) {
            unsigned pos = 2 * t - (t & (half - 1));
            part[pos] = part[pos] + part[pos + half];
        }
        __syncthreads();
    }
    if (t == 0) {
        sums[blockIdx.x] = part[0];
    }
}

__global__ void fold_rounded(float *sums, const float *in)
{
    extern __shared__ float part[];
    unsigned t = threadIdx.x;
    part[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
        if (t < blockDim.x / 2) {
            unsigned pos = 2 * t - (t & (half - 1));
            part[pos] = part[pos] + part[pos + half]; //~ data-race
        }
        __syncthreads();
    }
    if (t == 0) {
        sums[blockIdx.x] = part[0];
    }
}
