// Issue 26, hole 1: a guard `threadIdx.x == c` pins the thread that runs an
// access, but two accesses identify one thread only when both pin it to the
// same value in every coordinate the block has. `threadIdx.x == 0` against
// `threadIdx.x == 1` is two different threads: without a barrier between
// them they race; with one, the barrier is needed (never redundant). The
// same for a local alias (`tid == 0`), for `threadIdx.y`, and for a guard
// that pins x but not y. Accesses pinned to the same thread in every
// coordinate are one thread's program order: verified.
// syncscope-args: --block-dim 64,2 --grid-dim 1
// expect-kernel: row_length_racy racy
// expect-kernel: row_length verified
// expect-kernel: alias_racy racy
// expect-kernel: alias_fixed verified
// expect-kernel: y_pinned_racy racy
// expect-kernel: y_pinned_fixed verified
// expect-kernel: x_pinned_only racy
// expect-kernel: one_thread_both verified

__global__ void row_length_racy(const int *row_ptr, int *len) {
    __shared__ int first, end;
    int row = blockIdx.x;
    if (threadIdx.x == 0 && threadIdx.y == 0) first = row_ptr[row];
    if (threadIdx.x == 1 && threadIdx.y == 0) end = row_ptr[row + 1]; //~ data-race
    if (threadIdx.x == 0 && threadIdx.y == 0) len[row] = end - first; //~ data-race
}

__global__ void row_length(const int *row_ptr, int *len) {
    __shared__ int first, end;
    int row = blockIdx.x;
    if (threadIdx.x == 0 && threadIdx.y == 0) first = row_ptr[row];
    if (threadIdx.x == 1 && threadIdx.y == 0) end = row_ptr[row + 1];
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) len[row] = end - first;
}

__global__ void alias_racy(float *out) {
    __shared__ float scale;
    int tid = threadIdx.x + blockDim.x * threadIdx.y;
    if (tid == 3) scale = out[0]; //~ data-race
    if (tid == 0) out[1] = scale * 2.0f; //~ data-race
}

__global__ void alias_fixed(float *out) {
    __shared__ float scale;
    int tid = threadIdx.x + blockDim.x * threadIdx.y;
    if (tid == 3) scale = out[0];
    __syncthreads();
    if (tid == 0) out[1] = scale * 2.0f;
}

__global__ void y_pinned_racy(int *out) {
    __shared__ int top;
    if (threadIdx.x == 0 && threadIdx.y == 1) top = out[0]; //~ data-race
    if (threadIdx.x == 0 && threadIdx.y == 0) out[1] = top; //~ data-race
}

__global__ void y_pinned_fixed(int *out) {
    __shared__ int top;
    if (threadIdx.x == 0 && threadIdx.y == 1) top = out[0];
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) out[1] = top;
}

// Thread (0,0) and thread (0,1) both pass `threadIdx.x == 0`.
__global__ void x_pinned_only(int *out) {
    __shared__ int count;
    if (threadIdx.x == 0) count = threadIdx.y; //~ data-race
    out[threadIdx.x + 64 * threadIdx.y] = count; //~ data-race
}

__global__ void one_thread_both(int *out) {
    __shared__ int acc;
    if (threadIdx.y == 0 && threadIdx.x == 5) acc = out[0];
    if (threadIdx.x == 5 && threadIdx.y == 0) acc = acc + 1;
    if (threadIdx.x == 5 && 0 == threadIdx.y) out[0] = acc;
}
