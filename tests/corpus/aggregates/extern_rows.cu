// A dynamically sized `__shared__` buffer declared as rows of a constant
// width (`extern __shared__ half rows[][W];`): a two-dimensional array whose
// row count the launch decides, reached by `rows[r][c]` and through a
// `float *` view of its first element.
//  * warp_rows:        each warp fills its own row, then every thread reads
//                      its row's first element after a barrier: verified.
//  * warp_rows_early:  the next warp's row read before the barrier: racy.
//  * float_view_rows:  each warp's 20 floats through `(float *)&rows[0][0]`,
//                      a neighbour's read after the barrier: verified.
// syncscope-args: --block-dim 128 --grid-dim 4
// expect-kernel: warp_rows verified
// expect-kernel: warp_rows_early racy
// expect-kernel: float_view_rows verified

#include <cuda_fp16.h>
#define W 40

__global__ void warp_rows(half *out)
{
    extern __shared__ half rows[][W];
    const unsigned warp = threadIdx.x / 32;
    const unsigned lane = threadIdx.x % 32;
    rows[warp][lane] = out[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = rows[warp][0];
}

__global__ void warp_rows_early(half *out)
{
    extern __shared__ half rows[][W];
    const unsigned warp = threadIdx.x / 32;
    const unsigned lane = threadIdx.x % 32;
    rows[warp][lane] = out[blockIdx.x * blockDim.x + threadIdx.x]; //~ data-race
    half next = rows[(warp + 1) % 4][lane]; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = next;
}

__global__ void float_view_rows(float *out)
{
    extern __shared__ half rows[][W];
    const unsigned warp = threadIdx.x / 32;
    const unsigned lane = threadIdx.x % 32;
    float *mine = (float *)&rows[0][0] + warp * 20;
    if (lane < 20) {
        mine[lane] = out[blockIdx.x * blockDim.x + threadIdx.x];
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = mine[(lane + 1) % 20];
}
