// Tiled matrix multiply for sizes that are whole tiles (`n % TILE == 0`,
// stated with `__requires`): 16 x 16 tiles of A and B staged through shared
// memory (zero-filled past the matrix edge), two barriers per tile. It sums
// the same products in the same order as matmul_naive.cu.
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
        int ak = t * TILE + tx;
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
