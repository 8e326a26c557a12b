// `memset`/`memcpy` as range accesses (every element of the range, by the
// calling thread), and function pointers whose target is known.
//  * clear_then_fill:     thread 0 clears the histogram with memset, a
//                         barrier, then each thread bumps its own bin: verified.
//  * clear_racy:          no barrier after the memset: racy (thread 0 clears
//                         every bin while each thread writes its own).
//  * stage_with_memcpy:   thread 0 copies the block's row with memcpy, a
//                         barrier, everyone reads: verified.
//  * apply_op:            a device function chosen by a function pointer that
//                         always names `scale_by_two`: inlined, verified.
//  * apply_op_racy:       the same operation writes the neighbour's cell: racy.
// syncscope-args: --block-dim 64 --grid-dim 32
// expect-kernel: clear_then_fill verified
// expect-kernel: clear_racy racy
// expect-kernel: stage_with_memcpy verified
// expect-kernel: apply_op verified
// expect-kernel: apply_op_racy racy

#include <cstring>

#define BINS 64

typedef float (*unary_op)(float);

__device__ float scale_by_two(float x) { return 2.0f * x; }

__global__ void clear_then_fill(const int *keys, int *hist)
{
    __shared__ int bins[BINS];
    if (threadIdx.x == 0)
        memset(bins, 0, sizeof(bins));
    __syncthreads();
    bins[threadIdx.x] = keys[blockIdx.x * BINS + threadIdx.x];
    __syncthreads();
    hist[blockIdx.x * BINS + threadIdx.x] = bins[BINS - 1 - threadIdx.x];
}

__global__ void clear_racy(const int *keys, int *hist)
{
    __shared__ int bins[BINS];
    if (threadIdx.x == 0)
        memset(bins, 0, BINS * sizeof(int)); //~ data-race
    bins[threadIdx.x] = keys[blockIdx.x * BINS + threadIdx.x]; //~ data-race
    __syncthreads();
    hist[blockIdx.x * BINS + threadIdx.x] = bins[BINS - 1 - threadIdx.x];
}

__global__ void stage_with_memcpy(const float *in, float *out)
{
    __shared__ float row[BINS];
    if (threadIdx.x == 0)
        memcpy(row, in + blockIdx.x * BINS, sizeof(row));
    __syncthreads();
    out[blockIdx.x * BINS + threadIdx.x] = row[(threadIdx.x + 1) % BINS];
}

__global__ void apply_op(float *data)
{
    unary_op op = scale_by_two;
    int i = blockIdx.x * BINS + threadIdx.x;
    data[i] = op(data[i]);
}

__global__ void apply_op_racy(float *data)
{
    unary_op op = &scale_by_two;
    int i = blockIdx.x * BINS + threadIdx.x;
    data[i + 1] = op(data[i]); //~ data-race
}
