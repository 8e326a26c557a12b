// Issue 26, hole 1, between blocks: global memory is shared by the grid, so
// two accesses identify one thread only when both pin the block too, to the
// same block. `blockIdx.x == 0` and `blockIdx.x == gridDim.x - 1` are two
// blocks as soon as the grid has two; `blockIdx.y == 0` against
// `blockIdx.y == 1` always are. Symbolic launch.
// expect-kernel: halo_racy racy
// expect-kernel: halo_apart verified
// expect-kernel: rows_racy racy
// expect-kernel: first_thread_of_first_block verified
// expect-kernel: first_threads_of_two_blocks racy

__global__ void halo_racy(float *halo, const float *in) {
    int t = threadIdx.x;
    if (blockIdx.x == 0) halo[t] = in[t]; //~ data-race
    if (blockIdx.x == gridDim.x - 1) halo[t] = in[t] + 1.0f; //~ data-race
}

__global__ void halo_apart(float *halo, const float *in) {
    int t = threadIdx.x;
    if (blockIdx.x == 0) halo[t] = in[t];
    if (blockIdx.x == gridDim.x - 1) halo[blockDim.x + t] = in[t] + 1.0f;
}

__global__ void rows_racy(int *rows) {
    int t = threadIdx.x;
    if (blockIdx.y == 0) rows[t] = blockIdx.x; //~ data-race
    if (blockIdx.y == 1) rows[t] += 1; //~ data-race
}

__global__ void first_thread_of_first_block(int *total, const int *part) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *total = part[0];
    if (threadIdx.x == 0 && 0 == blockIdx.x) *total += part[1];
}

__global__ void first_threads_of_two_blocks(int *total, const int *part) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *total = part[0]; //~ data-race
    if (blockIdx.x == 1 && threadIdx.x == 0) *total += part[1]; //~ data-race
}
