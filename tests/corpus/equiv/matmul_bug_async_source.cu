// Seeded bug in matmul_tiled_async.cu: the B tile's element is copied from
// B at the A tile's index (`row * n + t * TILE + tx`). Race-free; not
// equivalent: the copy writes the element it reads, so the wrong source
// shows in the products.
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
        cuda::memcpy_async(&Bs[ty][tx], &B[row * n + t * TILE + tx], sizeof(float), pipe);
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
