// Sorting networks in shared memory, one block of SORT_N / 2 or SORT_N threads.
#include "../include/prims/block_ops.cuh"

// expect-kernel: bitonic_sort verified
// expect-kernel: odd_even_sort verified
// expect-kernel: odd_even_sort_nosync racy

__global__ void bitonic_sort(float* data) {
    __shared__ float s[SORT_N];
    int tid = threadIdx.x;
    s[tid] = data[blockIdx.x * SORT_N + tid];
    __syncthreads();
    for (int k = 2; k <= SORT_N; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            int partner = tid ^ j;
            if (partner > tid) {
                compare_swap(s, tid, partner, (tid & k) == 0);
            }
            __syncthreads();
        }
    }
    data[blockIdx.x * SORT_N + tid] = s[tid];
}

__global__ void odd_even_sort(float* data) {
    __shared__ float s[SORT_N];
    int tid = threadIdx.x;
    s[tid] = data[blockIdx.x * SORT_N + tid];
    __syncthreads();
    for (int phase = 0; phase < SORT_N; ++phase) {
        if ((tid & 1) == (phase & 1) && tid + 1 < SORT_N) {
            compare_swap(s, tid, tid + 1, true);
        }
        __syncthreads();
    }
    data[blockIdx.x * SORT_N + tid] = s[tid];
}

// Without the barrier, phase p + 1 reads pairs phase p is still swapping.
__global__ void odd_even_sort_nosync(float* data) {
    __shared__ float s[SORT_N];
    int tid = threadIdx.x;
    s[tid] = data[blockIdx.x * SORT_N + tid];
    __syncthreads();
    for (int phase = 0; phase < SORT_N; ++phase) {
        if ((tid & 1) == (phase & 1) && tid + 1 < SORT_N) {
            compare_swap(s, tid, tid + 1, true);
        }
    }
    __syncthreads();
    data[blockIdx.x * SORT_N + tid] = s[tid];
}
