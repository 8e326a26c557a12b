// Tiled matrix multiply for sizes that are whole tiles, as
// matmul_tiled_whole.cu, but each thread stages its element of the A and B
// tiles with `cuda::memcpy_async` of one float into a thread-scope
// `cuda::pipeline` (acquire, two copies, commit, wait, then the barrier).
// A copy of one element between arrays of one element type writes what it
// reads, as the plain assignment does: equivalent to matmul_naive.cu and
// matmul_tiled_whole.cu.
#include <cuda/pipeline>
#define TILE 16
// expect-kernel: matmul verified
__global__ void matmul(float *C, const float *A, const float *B, int n) {
    __requires(blockDim.x == TILE && blockDim.y == TILE);
    __requires(n % TILE == 0);
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        pipe.producer_acquire();
        cuda::memcpy_async(&As[ty][tx], &A[row * n + t * TILE + tx], sizeof(float), pipe);
        cuda::memcpy_async(&Bs[ty][tx], &B[(t * TILE + ty) * n + col], sizeof(float), pipe);
        pipe.producer_commit();
        pipe.consumer_wait();
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            sum += As[ty][k] * Bs[k][tx];
        }
        pipe.consumer_release();
        __syncthreads();
    }
    if (row < n && col < n) {
        C[row * n + col] = sum;
    }
}
