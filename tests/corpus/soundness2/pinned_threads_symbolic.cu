// Issue 26, hole 1, under a symbolic launch: `threadIdx.x == 0` and
// `threadIdx.x == 1` are two threads of one block (any block of two or more
// threads), so the scalar one writes and the other reads races without a
// barrier, and the barrier that orders them is needed. The same through a
// local copy of the index (`int tid = threadIdx.x; if (tid == 0)`).
// expect-kernel: row_length_racy racy
// expect-kernel: row_length verified
// expect-kernel: one_thread_both verified
// expect-kernel: alias_racy racy
// expect-kernel: alias_fixed verified

__global__ void row_length_racy(const int *row_ptr, int *len) {
    __shared__ int first, end;
    int b = blockIdx.x;
    if (threadIdx.x == 0) first = row_ptr[b];
    if (threadIdx.x == 1) end = row_ptr[b + 1]; //~ data-race
    if (threadIdx.x == 0) len[b] = end - first; //~ data-race
}

__global__ void row_length(const int *row_ptr, int *len) {
    __shared__ int first, end;
    int b = blockIdx.x;
    if (threadIdx.x == 0) first = row_ptr[b];
    if (threadIdx.x == 1) end = row_ptr[b + 1];
    __syncthreads();
    if (threadIdx.x == 0) len[b] = end - first;
}

__global__ void one_thread_both(const int *row_ptr, int *len) {
    __shared__ int first;
    int b = blockIdx.x;
    if (threadIdx.x == 0) first = row_ptr[b];
    if (threadIdx.x == 0) len[b] = first;
}

__global__ void alias_racy(float *out) {
    __shared__ float lo, hi;
    int tid = threadIdx.x;
    int b = blockIdx.x;
    if (tid == 0) lo = out[2 * b];
    if (tid == 1) hi = out[2 * b + 1]; //~ data-race
    if (tid == 0) out[2 * b] = hi - lo; //~ data-race
}

__global__ void alias_fixed(float *out) {
    __shared__ float lo, hi;
    int tid = threadIdx.x;
    int b = blockIdx.x;
    if (tid == 0) lo = out[2 * b];
    if (tid == 1) hi = out[2 * b + 1];
    __syncthreads();
    if (tid == 0) out[2 * b] = hi - lo;
}
