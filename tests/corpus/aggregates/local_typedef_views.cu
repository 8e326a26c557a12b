// A pointer cast to a type named by a `typedef` inside the kernel (`typedef
// int4 chunk_t;` in a loop body, as tiled GEMMs write their 16-byte copies):
// the alias's size makes the cast a byte view, so each lane's 16-byte chunk
// of a float row is four floats.
//  * chunk_rows:        each lane copies its own 16-byte chunk of every row
//                       into shared memory, then reads its neighbour's
//                       chunk after a barrier: verified.
//  * chunk_rows_skewed: the chunks start 8 bytes apart, so neighbouring
//                       lanes' chunks overlap: racy.
//  * chunk_rows_twice:  one alias name given two different types: its size
//                       is unknown, so the cast is not-verified.
// syncscope-args: --block-dim 32 --grid-dim 4
// expect-kernel: chunk_rows verified
// expect-kernel: chunk_rows_skewed racy
// expect-kernel: chunk_rows_twice not-verified

#define ROWS 4
#define ROW 128

__global__ void chunk_rows(const float *in, float *out)
{
    __shared__ float tile[ROWS * ROW];
    const int lane = threadIdx.x;
    const float *src = in + blockIdx.x * ROWS * ROW;
    for (int r = 0; r < ROWS; r++) {
        typedef int4 chunk_t;
        *((chunk_t *)(tile + r * ROW) + lane) = *((const chunk_t *)(src + r * ROW) + lane);
    }
    __syncthreads();
    float sum = 0.0f;
    for (int r = 0; r < ROWS; r++) {
        sum += tile[r * ROW + 4 * ((lane + 1) % 32)] + tile[r * ROW + 4 * lane + 3];
    }
    out[blockIdx.x * blockDim.x + lane] = sum;
}

__global__ void chunk_rows_skewed(const float *in, float *out)
{
    __shared__ float tile[ROWS * ROW + 64];
    const int lane = threadIdx.x;
    const float *src = in + blockIdx.x * ROWS * ROW;
    for (int r = 0; r < ROWS; r++) {
        typedef int4 chunk_t;
        *((chunk_t *)((char *)(tile + r * ROW) + 8 * lane)) = *((const chunk_t *)(src + r * ROW) + lane); //~ data-race
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + lane] = tile[4 * lane];
}

__global__ void chunk_rows_twice(const float *in, float *out)
{
    __shared__ float tile[ROW];
    const int lane = threadIdx.x;
    {
        typedef int2 chunk_t;
        *((chunk_t *)(tile + 2) + lane) = *((const chunk_t *)(in + 2) + lane);
    }
    {
        typedef int4 chunk_t;
        *((chunk_t *)(tile + 4) + lane) = *((const chunk_t *)(in + 4) + lane); //~ not-verified
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + lane] = tile[lane];
}
