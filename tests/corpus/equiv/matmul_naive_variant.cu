// The naive matrix multiply written differently: threads outside the
// matrix leave early, another accumulator name, `acc = acc + ...`, the
// factors swapped (a commutative operation). The same products are summed
// in the same order as matmul_naive.cu.
// expect-kernel: matmul verified
__global__ void matmul(float *C, const float *A, const float *B, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n || col >= n) {
        return;
    }
    float acc = 0.0f;
    for (int i = 0; i < n; i++) {
        acc = acc + B[i * n + col] * A[row * n + i];
    }
    C[row * n + col] = acc;
}
