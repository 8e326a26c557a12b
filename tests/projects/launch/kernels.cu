// Kernels whose launch facts are only written in host.cu: each is race-free
// under the launches the project makes (and racy under some other launch).
// expect-kernel: matmul verified
// expect-kernel: transpose verified
// expect-kernel: scale_by_row verified
// expect-kernel: rotate_scan verified
// expect-kernel: fold racy
#define TILE 16
#define TILE_DIM 32
#define BLOCK_ROWS 8

// The block shape (TILE x TILE) and n == gridDim.x * TILE come from the launch.
__global__ void matmul(const float* A, const float* B, float* C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            acc += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    C[row * n + col] = acc;
}

// width and height are tied to the grid at the launch (host checks that
// both are multiples of TILE_DIM).
__global__ void transpose(float* out, const float* in, int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}

// Safe only for 1-D blocks: threads differing in threadIdx.y would write
// the same element. The launch passes an int block size chosen at run time.
__global__ void scale_by_row(float* out, const float* in, const float* scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * scale[threadIdx.y];
    }
}

// A rotation by masking is a permutation only when n is a power of two,
// which the host asserts; one block of n threads.
__global__ void rotate_scan(float* data, int n, int shift) {
    extern __shared__ float buf[];
    int t = threadIdx.x;
    buf[(t + shift) & (n - 1)] = data[t];
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k <= t; ++k) {
        acc += buf[k];
    }
    data[t] = acc;
}

// Launched with 128 threads (safe) and with 256 (threads t and t + 128
// write the same cell): the finding names the failing launch.
__global__ void fold(float* out, const float* in) {
    __shared__ float s[128];
    s[threadIdx.x % 128] = in[blockIdx.x * blockDim.x + threadIdx.x]; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[127 - threadIdx.x % 128];
}
