// Host code of launch_ways/kernels.cu: launches beyond one `<<<…>>>` site.
#include <cuda_runtime.h>

#define HALF 128

__global__ void pack_runtime(float *out, const float *in);
__global__ void sum_runtime(float *total, const float *in);
__global__ void pack_helper(float *out, const float *in);
__global__ void sum_helper(float *total, const float *in);
__global__ void pack_attr(float *out, const float *in);
__global__ void pack_pointer(float *out, const float *in);
__global__ void quarter_pointer(float *out, const float *in);
__global__ void pack_table(float *out, const float *in);
__global__ void sum_table(float *total, const float *in);
__global__ void pack_fields(float *out, const float *in);
__global__ void wrap_fields(float *out, const float *in, int n);
__global__ void row_wrap(float *out, const float *in, int w);
__global__ void row_wrap_wide(float *out, const float *in, int w);
__global__ void pack_loop(float *out, const float *in);
__global__ void pack_loop_grid(float *out, const float *in);

typedef void (*pack_fn)(float *, const float *);

void runtime_launches(float *out, float *total, const float *in)
{
    pack_runtime<<<1, HALF>>>(out, in);
    sum_runtime<<<1, HALF>>>(total, in);
    void *args[] = {&out, &in};
    cudaLaunchKernel((const void *)pack_runtime, dim3(2), dim3(2 * HALF), args, 0, 0);
    void *sum_args[] = {&total, &in};
    cudaLaunchKernel((const void *)sum_runtime, dim3(2), dim3(2 * HALF), sum_args, 0, 0);
}

// Launches whatever kernel it is given: its callers' kernels run with
// `threads` threads, which nothing here bounds.
void launch_with(pack_fn kernel, float *out, const float *in, int threads)
{
    kernel<<<1, threads>>>(out, in);
}

void helper_launches(float *out, float *total, const float *in)
{
    pack_helper<<<1, HALF>>>(out, in);
    launch_with(pack_helper, out, in, 2 * HALF);
    launch_with(sum_helper, total, in, 2 * HALF);
}

void pointer_launches(float *out, const float *in, int variants)
{
    quarter_pointer<<<1, HALF / 2>>>(out, in);
    void (*kernel)(float *, const float *);
    for (int v = 0; v < variants; ++v) {
        switch (v) {
        case 0:
            kernel = &pack_pointer;
            break;
        default:
            kernel = &quarter_pointer;
            break;
        }
        if (kernel == &pack_pointer || v < 2) {
            kernel<<<4, HALF>>>(out, in);
        }
    }
}

void attribute_then_launch(float *out, const float *in)
{
    cudaFuncSetAttribute(pack_attr, cudaFuncAttributePreferredSharedMemoryCarveout, 50);
    pack_attr<<<4, HALF>>>(out, in);
}

void table_launches(float *out, float *total, const float *in)
{
    const pack_fn table[] = {pack_table, sum_table};
    pack_table<<<1, HALF>>>(out, in);
    for (int i = 0; i < 2; ++i) {
        table[i]<<<2, 2 * HALF>>>(i == 0 ? out : total, in);
    }
}

void field_launches(float *out, const float *in, int n)
{
    dim3 threads;
    threads.x = 2 * HALF;
    pack_fields<<<1, threads>>>(out, in);
    dim3 grid;
    dim3 block;
    grid.x = n / HALF;
    block.x = HALF;
    wrap_fields<<<grid, block>>>(out, in, n);
}

// Sizes and arguments through a `dim3` parameter's fields and the block's
// own field (`threads.x` is blockDim.x at the launch).
void row_launches(float *out, const float *in, dim3 dims, int bs)
{
    dim3 threads(bs);
    dim3 grid(dims.x / threads.x);
    row_wrap<<<grid, threads>>>(out, in, dims.x);
    dim3 wide(dims.x / threads.x + 1);
    row_wrap_wide<<<wide, threads>>>(out, in, dims.x);
}

void loop_launches(float *out, const float *in, int rounds)
{
    int threads = HALF / 2;
    for (int r = 0; r < 3; ++r) {
        pack_loop<<<1, threads>>>(out, in);
        threads *= 2;
    }
    int block = HALF;
    for (int r = 0; r < rounds; ++r) {
        pack_loop_grid<<<r + 1, block>>>(out, in);
    }
}
