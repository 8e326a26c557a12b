// Issue 20, item 2: division and remainder by launch sizes (`t / blockDim.x`,
// `t % blockDim.x`) with symbolic launch sizes. The solver sees them as a
// quotient and a remainder variable (t == q * blockDim.x + r, 0 <= r <
// blockDim.x), the digits the injectivity lemmas work with, and decides
// them exactly: each race-free kernel has a racy twin. The twins write
// thread-dependent values, so a collision is a data race, not a benign one.
// expect-kernel: digits_recombined verified
// expect-kernel: digits_added racy
// expect-kernel: flat_to_rows verified
// expect-kernel: flat_to_columns racy
// expect-kernel: lane_of_block verified
// expect-kernel: lane_of_block_shared racy

// The global id split into its block and lane, put back together.
__global__ void digits_recombined(float* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int row = t / blockDim.x;
    int col = t % blockDim.x;
    out[row * blockDim.x + col] = (float)t;
}

// Racy twin: row + col does not tell (row 0, col 1) from (row 1, col 0).
__global__ void digits_added(float* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int row = t / blockDim.x;
    int col = t % blockDim.x;
    out[row + col] = (float)t; //~ data-race
}

// A 2-D block's flat id split by its row length, in shared memory.
__global__ void flat_to_rows(float* out) {
    extern __shared__ float tile[];
    int flat = threadIdx.y * blockDim.x + threadIdx.x;
    int x = flat % blockDim.x;
    int y = flat / blockDim.x;
    tile[y * blockDim.x + x] = (float)flat;
    __syncthreads(); //~ redundant-barrier
    if (flat == 0) {
        out[blockIdx.x] = tile[0];
    }
}

// Racy twin: every row writes the same columns.
__global__ void flat_to_columns(float* out) {
    extern __shared__ float tile[];
    int flat = threadIdx.y * blockDim.x + threadIdx.x;
    int x = flat % blockDim.x;
    tile[x] = (float)flat; //~ data-race
    __syncthreads();
    if (flat == 0) {
        out[blockIdx.x] = tile[0];
    }
}

// The remainder of the thread id by the block size is the thread id.
__global__ void lane_of_block(float* out) {
    __shared__ float s[1024];
    int lane = threadIdx.x % blockDim.x;
    s[lane] = (float)threadIdx.x;
    __syncthreads(); //~ redundant-barrier
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[lane];
}

// Racy twin: the quotient of the thread id by the block size is 0 for all.
__global__ void lane_of_block_shared(float* out) {
    __shared__ float s[1024];
    int q = threadIdx.x / blockDim.x;
    s[q] = (float)threadIdx.x; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[q];
}
