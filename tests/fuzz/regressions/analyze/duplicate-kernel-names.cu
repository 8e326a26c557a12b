// for, while and do-while loops without barriers: each thread may be in any
// iteration.  `block_stride_clear` clears a 1024-cell table with a
// block-stride loop (k = tid + j * blockDim.x is owned by one thread:
// verified).  `row_sum_while` and `row_sum_do_while` only read shared input
// and write.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: block_stride_clear verified
// expect-kernel: row_sum_while verified
// expect-kernel: row_sum_do_while verified
// expect-kernel: while_from_zero racy

__global__ void block_stride_clear(int *out)
{
    __shared__ int table[1024];
    int tid = threadIdx.x;
    for (int k = tid; k < 1024; k += blockDim.x)
        table[k] = 0;
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = table[1023 - tid];
}

__global__ void row_sum_while(floone thread:
// verified).  `row_sum_while` and `row_sum_do_while` only read shared input
// and write.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: block_stride_clear verified
// expect-kernel: row_sum_while verified
// expect-kernel: row_sum_do_while verified
// expect-kernel: while_from_zero racy

__global__ void block_stride_clear(int *out)
{
    __shared__ int table[1024];
    int tid = threadIdx.x;
    for (int k = tid; k < 1024; k += blockDim.x)
        table[k] = 0;
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = table[1023 - tid];
}

__global__ void row_sum_while(float *out, const float *m, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    int c = 0;
    while (c < cols) {
        acc += m[row * cols + c];
        c++;
    }
    out[row] = acc;
}

__global__ void row_sum_do_while(float *out, const float *m)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    int c = 0;
    do {
        acc += m[row * 4 + c];
        c++;
    } while (c < 4);
    out[row] = acc;
}

__global__ vox.x;
    float acc = 0.0f;
    int c = 0;
    do {
        acc += m[row * 4 + c];
        c++;
    } while (c < 4);
    out[row] = acc;
}

__global__ void while_from_zero(int *out, int n)
{
    __shared__ int s[1024];
    int tid = threadIdx.x;
    int k = 0;
    while (k < n) {
        s[k] = tid; //~ data-racat *out, const float *m, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    int c = 0;
    while (c < cols) {
        acc += m[row * cols + c];
        c++;
    }
    out[row] = acc;
}

__global__ void row_sum_do_while(float *out, const float *m)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    int c = 0;
    do {
        acc += m[row * 4 + c];
        c++;
    } while (c < 4);
    out[row] = acc;
}

__global__ vox.x;
    float acc = 0.0f;
    int c = 0;
    do {
        acc += m[row * 4 + c];
        c++;
    } while (c < 4);
    out[row] = acc;
}

__global__ void while_from_zero(int *out, int n)
{
    __shared__ int s[1024];
    int tid = threadIdx.x;
    int k = 0;
    while (k < n) {
        s[k] = tid; //~ data-race
        k++;
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[tid];
}
