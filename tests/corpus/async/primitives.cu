// The pipeline primitives: `__pipeline_memcpy_async` copies this thread's
// part, `__pipeline_commit` closes a batch and `__pipeline_wait_prior(N)`
// waits for all but the N most recent batches -- of this thread only, so
// reading another thread's element needs a barrier after the wait.
//  * stage_rows:        copy, commit, wait_prior(0), barrier, read the
//                       neighbour's element: verified.
//  * stage_rows_racy:   wait_prior(1) leaves the only batch in flight: the
//                       read after the barrier may see it land: racy.
//  * stage_rows_by_mode: the wait happens only in one case of a switch: for
//                       the other modes the copy is still in flight at the
//                       read: racy.
// syncscope-args: --block-dim 128 --grid-dim 32
// expect-kernel: stage_rows verified
// expect-kernel: stage_rows_racy racy
// expect-kernel: stage_rows_by_mode racy

#include <cuda_pipeline.h>

#define ROW 128

__device__ __forceinline__ void stage_row(float *dst, const float *src)
{
    __pipeline_memcpy_async(&dst[threadIdx.x], &src[threadIdx.x], sizeof(float));
    __pipeline_commit();
}

__global__ void stage_rows(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ float row[ROW];
    stage_row(row, in + blockIdx.x * ROW);
    __pipeline_wait_prior(0);
    __syncthreads();
    out[blockIdx.x * ROW + threadIdx.x] = row[(threadIdx.x + 1) % ROW];
}

__global__ void stage_rows_racy(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ float row[ROW];
    __pipeline_memcpy_async(&row[threadIdx.x], &in[blockIdx.x * ROW + threadIdx.x], sizeof(float)); //~ data-race
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    out[blockIdx.x * ROW + threadIdx.x] = row[(threadIdx.x + 1) % ROW]; //~ data-race
}

__global__ void stage_rows_by_mode(const float *__restrict__ in, float *__restrict__ out, int mode)
{
    __shared__ float row[ROW];
    __pipeline_memcpy_async(&row[threadIdx.x], &in[blockIdx.x * ROW + threadIdx.x], sizeof(float)); //~ data-race
    __pipeline_commit();
    switch (mode) {
    case 0:
        __pipeline_wait_prior(0);
        break;
    default:
        break;
    }
    __syncthreads();
    out[blockIdx.x * ROW + threadIdx.x] = row[(threadIdx.x + 1) % ROW]; //~ data-race
}
