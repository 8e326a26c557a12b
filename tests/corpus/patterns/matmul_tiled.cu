// Tiled matrix multiply C = A * B for square n x n matrices, n = gridDim.x *
// TILE.  Each iteration loads one tile of A and one of B, synchronises,
// accumulates, and synchronises again before the next load overwrites the
// tiles.  Both barriers are needed.
// syncscope-args: --block-dim 16,16 --grid-dim 8,8 -D TILE=16
// expect-kernel: matmul_tiled verified

__global__ void matmul_tiled(float *C, const float *A, const float *B)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int n = gridDim.x * TILE;
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;

    for (int t = 0; t < n / TILE; t++) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}
