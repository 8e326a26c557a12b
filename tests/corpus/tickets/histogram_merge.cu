// Item 3 of issue 19, the last-block pattern in a histogram: every block
// counts its slice into a `__shared__` histogram, copies it to its row of
// `block_hist` (one bin per thread), `__syncthreads()` so thread 0's
// `__threadfence()` and ticket come after every thread's copy, and the
// block that takes the last ticket (atomicAdd on a counter the host zeroes,
// compared with the number of blocks minus one) merges the rows, one bin
// per thread. The launch is the host code's below (1-D blocks of BINS
// threads, any number of blocks). `merge_histograms` is verified; the racy twins: thread 0
// fences and counts before the other threads copied their bins (no barrier
// between: `merge_histograms_early_ticket`), and a last block that merges
// into bins its own threads still update (`merge_histograms_shared_bin`:
// every thread adds to bin 0 of the result), and thread 0 fencing before
// the barrier that follows the copies (`merge_histograms_fence_too_early`:
// the fence orders only thread 0's own writes).
// syncscope-args: --block-dim 64
// expect-kernel: merge_histograms verified
// expect-kernel: merge_histograms_early_ticket racy
// expect-kernel: merge_histograms_shared_bin racy
// expect-kernel: merge_histograms_fence_too_early racy

#include <cuda_runtime.h>

#define BINS 64
#define PER_THREAD 16

__global__ void merge_histograms(unsigned *hist, unsigned *block_hist,
                                 unsigned *blocks_done, const unsigned char *data)
{
    __shared__ unsigned s_hist[BINS];
    __shared__ int s_last;
    const int t = threadIdx.x;
    s_hist[t] = 0;
    __syncthreads();
    const unsigned char *mine = data + (blockIdx.x * BINS + t) * PER_THREAD;
    for (int k = 0; k < PER_THREAD; ++k)
        atomicAdd(&s_hist[mine[k] % BINS], 1u);
    __syncthreads();
    block_hist[blockIdx.x * BINS + t] = s_hist[t];
    __syncthreads();
    if (t == 0) {
        __threadfence();
        s_last = atomicAdd(blocks_done, 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (s_last) {
        unsigned total = 0;
        for (int b = 0; b < gridDim.x; ++b)
            total += block_hist[b * BINS + t];
        hist[t] = total;
    }
}

__global__ void merge_histograms_early_ticket(unsigned *hist, unsigned *block_hist,
                                              unsigned *blocks_done, const unsigned char *data)
{
    __shared__ unsigned s_hist[BINS];
    __shared__ int s_last;
    const int t = threadIdx.x;
    s_hist[t] = 0;
    __syncthreads();
    const unsigned char *mine = data + (blockIdx.x * BINS + t) * PER_THREAD;
    for (int k = 0; k < PER_THREAD; ++k)
        atomicAdd(&s_hist[mine[k] % BINS], 1u);
    __syncthreads();
    block_hist[blockIdx.x * BINS + t] = s_hist[t]; //~ data-race
    if (t == 0) {
        __threadfence();
        s_last = atomicAdd(blocks_done, 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (s_last) {
        unsigned total = 0;
        for (int b = 0; b < gridDim.x; ++b)
            total += block_hist[b * BINS + t]; //~ data-race
        hist[t] = total;
    }
}

__global__ void merge_histograms_shared_bin(unsigned *hist, unsigned *block_hist,
                                            unsigned *blocks_done, const unsigned char *data)
{
    __shared__ unsigned s_hist[BINS];
    __shared__ int s_last;
    const int t = threadIdx.x;
    s_hist[t] = 0;
    __syncthreads();
    const unsigned char *mine = data + (blockIdx.x * BINS + t) * PER_THREAD;
    for (int k = 0; k < PER_THREAD; ++k)
        atomicAdd(&s_hist[mine[k] % BINS], 1u);
    __syncthreads();
    block_hist[blockIdx.x * BINS + t] = s_hist[t];
    __syncthreads();
    if (t == 0) {
        __threadfence();
        s_last = atomicAdd(blocks_done, 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (s_last) {
        for (int b = 0; b < gridDim.x; ++b)
            hist[0] += block_hist[b * BINS + t]; //~ data-race
    }
}

__global__ void merge_histograms_fence_too_early(unsigned *hist, unsigned *block_hist,
                                                unsigned *blocks_done, const unsigned char *data)
{
    __shared__ unsigned s_hist[BINS];
    __shared__ int s_last;
    const int t = threadIdx.x;
    s_hist[t] = 0;
    __syncthreads();
    const unsigned char *mine = data + (blockIdx.x * BINS + t) * PER_THREAD;
    for (int k = 0; k < PER_THREAD; ++k)
        atomicAdd(&s_hist[mine[k] % BINS], 1u);
    __syncthreads();
    block_hist[blockIdx.x * BINS + t] = s_hist[t]; //~ data-race
    if (t == 0)
        __threadfence();
    __syncthreads();
    if (t == 0)
        s_last = atomicAdd(blocks_done, 1) == gridDim.x - 1;
    __syncthreads();
    if (s_last) {
        unsigned total = 0;
        for (int b = 0; b < gridDim.x; ++b)
            total += block_hist[b * BINS + t]; //~ data-race
        hist[t] = total;
    }
}

void histogram(unsigned *hist, unsigned *block_hist, unsigned *blocks_done,
               const unsigned char *data, int blocks)
{
    cudaMemset(blocks_done, 0, sizeof(unsigned));
    merge_histograms<<<blocks, BINS>>>(hist, block_hist, blocks_done, data);
    merge_histograms_early_ticket<<<blocks, BINS>>>(hist, block_hist, blocks_done, data);
    merge_histograms_shared_bin<<<blocks, BINS>>>(hist, block_hist, blocks_done, data);
    merge_histograms_fence_too_early<<<blocks, BINS>>>(hist, block_hist, blocks_done, data);
}
