// Object-like and function-like #define macros, expanded before analysis.
// In `macro_indexing` IDX(r, c) linearises a TILE x TILE tile (verified).
// In `macro_hides_race` the macro LEFT(i) hides an off-by-one: thread t
// writes cell t and reads cell t - 1 of the same array in one interval.
// syncscope-args: --block-dim 8,8 --grid-dim 4,4
// expect-kernel: macro_indexing verified
// expect-kernel: macro_hides_race racy

#define TILE 8
#define IDX(r, c) ((r) * TILE + (c))
#define LEFT(i) ((i) - 1)
#define SQUARE(x) ((x) * (x))

__global__ void macro_indexing(float *out, const float *in)
{
    __shared__ float tile[TILE * TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int width = gridDim.x * TILE;
    int gx = blockIdx.x * TILE + tx, gy = blockIdx.y * TILE + ty;

    tile[IDX(ty, tx)] = SQUARE(in[gy * width + gx]);
    __syncthreads();
    out[gy * width + gx] = tile[IDX(tx, ty)];
}

__global__ void macro_hides_race(float *out, const float *in)
{
    __shared__ float row[TILE * TILE + 1];
    int t = threadIdx.y * TILE + threadIdx.x + 1;
    int width = gridDim.x * TILE;
    int gx = blockIdx.x * TILE + threadIdx.x, gy = blockIdx.y * TILE + threadIdx.y;

    row[t] = in[gy * width + gx]; //~ data-race
    out[gy * width + gx] = row[LEFT(t)]; //~ data-race
}
