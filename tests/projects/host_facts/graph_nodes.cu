// Kernels launched through a CUDA graph: a kernel node's parameters name
// the kernel (`params.func`) and its sizes (`params.gridDim`,
// `params.blockDim`), and `cudaGraphAddKernelNode` launches it with them.
// `collect` writes one cell from thread 0 of every block, so it is race-free
// only with one block per launch, and the node gives it one. The node of
// `collect_many` gives it a grid of four blocks (racy). `collect_resized`'s
// node has one block, then its grid is changed under a condition before
// the node is added: not understood, so any launch (racy). `collect_stale`'s
// node stores a grid of four blocks from a `dim3` that is set to one block
// after the store: the node keeps four (racy).
// expect-kernel: spread verified
// expect-kernel: collect verified
// expect-kernel: collect_many racy
// expect-kernel: collect_resized racy
// expect-kernel: collect_stale racy
#include <cstring>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void spread(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = 2.0f * in[i];
    }
}

__global__ void collect(float *result, const float *partial)
{
    if (threadIdx.x == 0) {
        result[0] = partial[blockIdx.x];
    }
}

__global__ void collect_many(float *result, const float *partial)
{
    if (threadIdx.x == 0) {
        result[0] = partial[blockIdx.x]; //~ data-race
    }
}

__global__ void collect_resized(float *result, const float *partial)
{
    if (threadIdx.x == 0) {
        result[0] = partial[blockIdx.x]; //~ data-race
    }
}

__global__ void collect_stale(float *result, const float *partial)
{
    if (threadIdx.x == 0) {
        result[0] = partial[blockIdx.x]; //~ data-race
    }
}

void build(cudaGraph_t graph, float *out, float *in, float *result, int n, bool wide)
{
    cudaGraphNode_t node;
    cudaKernelNodeParams params;
    void *spread_args[3] = {(void *)&out, (void *)&in, (void *)&n};
    params.func = (void *)spread;
    params.gridDim = dim3((n + THREADS - 1) / THREADS, 1, 1);
    params.blockDim = dim3(THREADS, 1, 1);
    params.sharedMemBytes = 0;
    params.kernelParams = spread_args;
    params.extra = NULL;
    cudaGraphAddKernelNode(&node, graph, NULL, 0, &params);

    memset(&params, 0, sizeof(params));
    void *collect_args[2] = {(void *)&result, (void *)&out};
    params.func = (void *)collect;
    params.gridDim = dim3(1, 1, 1);
    params.blockDim = dim3(THREADS, 1, 1);
    params.kernelParams = collect_args;
    cudaGraphAddKernelNode(&node, graph, NULL, 0, &params);

    params.func = (void *)collect_many;
    params.gridDim = dim3(4, 1, 1);
    params.blockDim = dim3(THREADS, 1, 1);
    cudaGraphAddKernelNode(&node, graph, NULL, 0, &params);

    params.func = (void *)collect_resized;
    params.gridDim = dim3(1, 1, 1);
    params.blockDim = dim3(THREADS, 1, 1);
    if (wide) {
        params.gridDim = dim3(8, 1, 1);
    }
    cudaGraphAddKernelNode(&node, graph, NULL, 0, &params);

    dim3 blocks(4, 1, 1);
    params.func = (void *)collect_stale;
    params.gridDim = blocks;
    params.blockDim = dim3(THREADS, 1, 1);
    blocks.x = 1;
    cudaGraphAddKernelNode(&node, graph, NULL, 0, &params);
}
