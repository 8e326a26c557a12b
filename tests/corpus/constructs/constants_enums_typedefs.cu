// const / constexpr locals and globals, an enum, a typedef and a using-alias
// feeding the index arithmetic.  Rows of WIDTH cells, one row per threadIdx.y.
// `row_major` is verified; `bad_stride` uses the enum constant HALF as the row
// stride, so row 1 starts in the middle of row 0 (racy: thread (16, 0) and
// thread (0, 1) both write cell 16).
// syncscope-args: --block-dim 32,4 --grid-dim 16
// expect-kernel: row_major verified
// expect-kernel: bad_stride racy

const int WIDTH = 32;
constexpr int ROWS = 4;
enum Layout { HALF = 16, FULL = 32 };
typedef float real_t;
using index_t = int;

__global__ void row_major(real_t *out, const real_t *in)
{
    __shared__ real_t s[ROWS * WIDTH];
    const index_t cell = threadIdx.y * FULL + threadIdx.x;
    constexpr int PER_BLOCK = ROWS * WIDTH;
    const index_t g = blockIdx.x * PER_BLOCK + cell;

    s[cell] = in[g];
    __syncthreads();
    out[g] = s[PER_BLOCK - 1 - cell];
}

__global__ void bad_stride(real_t *out, const real_t *in)
{
    __shared__ real_t s[ROWS * WIDTH];
    const index_t cell = threadIdx.y * HALF + threadIdx.x;
    constexpr int PER_BLOCK = ROWS * WIDTH;
    const index_t g = blockIdx.x * PER_BLOCK + threadIdx.y * WIDTH + threadIdx.x;

    s[cell] = in[g]; //~ data-race
    __syncthreads();
    out[g] = s[PER_BLOCK - 1 - cell];
}
