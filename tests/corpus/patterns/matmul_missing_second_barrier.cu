// matmul_tiled.cu without the barrier at the end of the tile loop: a fast
// thread loads tile t+1 into As/Bs while a slower thread of its block still
// multiplies with tile t.  Witness: two threads of one block, t and t + 1.
// syncscope-args: --block-dim 16,16 --grid-dim 8,8 -D TILE=16
// expect-kernel: matmul_one_barrier racy

__global__ void matmul_one_barrier(float *C, const float *A, const float *B)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int n = gridDim.x * TILE;
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;

    for (int t = 0; t < n / TILE; t++) {
        As[ty][tx] = A[row * n + t * TILE + tx]; //~ data-race
        Bs[ty][tx] = B[(t * TILE + ty) * n + col]; //~ data-race
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx]; //~ data-race
    }
    C[row * n + col] = acc;
}
