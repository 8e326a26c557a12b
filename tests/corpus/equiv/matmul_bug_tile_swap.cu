// Seeded bug in a tiled loop: the B tile read with its indices swapped
// (Bs[tx][k] for Bs[k][tx]), so each tile's products pair A's row with a
// row of B's tile instead of a column. Race-free: the tiles are read only
// between the two barriers of each iteration.
#define TILE 16
// expect-kernel: matmul verified
__global__ void matmul(float *C, const float *A, const float *B, int n) {
    __requires(blockDim.x == TILE && blockDim.y == TILE);
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
        int ak = t * TILE + tx;
        int bk = t * TILE + ty;
        As[ty][tx] = (row < n && ak < n) ? A[row * n + ak] : 0.0f;
        Bs[ty][tx] = (bk < n && col < n) ? B[bk * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            sum += As[ty][k] * Bs[tx][k];
        }
        __syncthreads();
    }
    if (row < n && col < n) {
        C[row * n + col] = sum;
    }
}
