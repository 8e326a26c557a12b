// A recursive __device__ function cannot be inlined: not-verified.  The
// function is written on one line, so its definition and its recursive call
// share the marked line.  Nothing else in the kernel is suspicious.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: tree_depth not-verified

__device__ int depth(const int *parent, int node, int limit) { return (node <= 0 || limit == 0) ? 0 : 1 + depth(parent, parent[node], limit - 1); } //~ not-verified

__global__ void tree_depth(int *out, const int *parent)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = depth(parent, i, 32);
}
