// Seeded bug: B read along a row instead of down a column.
// expect-kernel: matmul verified
__global__ void matmul(float *C, const float *A, const float *B, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float sum = 0.0f;
        for (int k = 0; k < n; ++k) {
            sum += A[row * n + k] * B[col * n + k];
        }
        C[row * n + col] = sum;
    }
}
