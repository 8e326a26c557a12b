// Seeded bug in a tiled loop: the A tile is loaded without its `t * TILE`
// offset, so every iteration stages the first tile of A's row again. Equal
// to the naive multiply only while n fits in one tile.
#define TILE 16
// expect-kernel: matmul verified
__global__ void matmul(float *C, const float *A, const float *B, int n) {
    __requires(blockDim.x == TILE && blockDim.y == TILE);
    __requires(n % TILE == 0);
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
        int ak = tx;
        int bk = t * TILE + ty;
        As[ty][tx] = (row < n && ak < n) ? A[row * n + ak] : 0.0f;
        Bs[ty][tx] = (bk < n && col < n) ? B[bk * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            sum += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    if (row < n && col < n) {
        C[row * n + col] = sum;
    }
}
