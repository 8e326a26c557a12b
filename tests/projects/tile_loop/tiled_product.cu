// A tiled matrix product in the common shape of SDK samples: the tile edge
// is a template parameter, the tiles of A and B are staged in shared memory
// in a loop over the shared dimension, and the host picks the tile edge and
// launches one thread per output element. `product_unsynced` lacks the
// barrier that ends each tile step (the next step's loads overwrite tiles
// other threads are still reading); `product_synced` has it.
// expect-kernel: product_unsynced racy
// expect-kernel: product_synced verified

template <int EDGE>
__global__ void product_unsynced(float *out, const float *lhs, const float *rhs,
                                 int inner, int cols) {
    __shared__ float lhs_tile[EDGE][EDGE];
    __shared__ float rhs_tile[EDGE][EDGE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * EDGE + ty;
    int col = blockIdx.x * EDGE + tx;
    float sum = 0.0f;
    for (int step = 0; step < inner / EDGE; ++step) {
        lhs_tile[ty][tx] = lhs[row * inner + step * EDGE + tx]; //~ data-race
        rhs_tile[ty][tx] = rhs[(step * EDGE + ty) * cols + col]; //~ data-race
        __syncthreads();
#pragma unroll
        for (int k = 0; k < EDGE; ++k) {
            sum += lhs_tile[ty][k] * rhs_tile[k][tx];
        }
    }
    out[row * cols + col] = sum;
}

template <int EDGE>
__global__ void product_synced(float *out, const float *lhs, const float *rhs,
                               int inner, int cols) {
    __shared__ float lhs_tile[EDGE][EDGE];
    __shared__ float rhs_tile[EDGE][EDGE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * EDGE + ty;
    int col = blockIdx.x * EDGE + tx;
    float sum = 0.0f;
    for (int step = 0; step < inner / EDGE; ++step) {
        lhs_tile[ty][tx] = lhs[row * inner + step * EDGE + tx];
        rhs_tile[ty][tx] = rhs[(step * EDGE + ty) * cols + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < EDGE; ++k) {
            sum += lhs_tile[ty][k] * rhs_tile[k][tx];
        }
        __syncthreads();
    }
    out[row * cols + col] = sum;
}

// rows x inner times inner x cols; every size a multiple of the tile edge,
// which is 16 or 32.
void multiply(float *d_out, const float *d_lhs, const float *d_rhs, int rows,
              int inner, int cols, int tile_edge, bool synced) {
    dim3 threads(tile_edge, tile_edge);
    dim3 grid(cols / threads.x, rows / threads.y);
    if (tile_edge == 16) {
        if (synced) {
            product_synced<16><<<grid, threads>>>(d_out, d_lhs, d_rhs, inner, cols);
        } else {
            product_unsynced<16><<<grid, threads>>>(d_out, d_lhs, d_rhs, inner, cols);
        }
    } else if (tile_edge == 32) {
        if (synced) {
            product_synced<32><<<grid, threads>>>(d_out, d_lhs, d_rhs, inner, cols);
        } else {
            product_unsynced<32><<<grid, threads>>>(d_out, d_lhs, d_rhs, inner, cols);
        }
    }
}
