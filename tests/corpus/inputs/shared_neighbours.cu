// Values read back from a `__shared__` tile after the barrier that ends
// the interval filling it are what their writer stored
// (`frontend/lower/shared_values.rs`): each thread stores its key at
// `threadIdx.x` (or `threadIdx.x + 1`, thread 0 also the halo cell 0),
// and after the barrier compares its key with its left neighbour's; with
// sorted keys the first index of each run scatters to distinct cells.
//  * bucket_bounds:          halo cell written by thread 0, the previous
//                            run's end stored at the key read back:
//                            verified.
//  * run_starts:             both cells read back (own and left): verified.
//  * run_starts_unsorted:    nothing stated about the keys: a possible race
//                            (`unconfirmed`: the witness gives one key two
//                            values, as in `stated_orders.cu`).
//  * run_starts_skip:        compared with the key two cells away: two
//                            threads of one run both write: racy.
//  * run_starts_odd_writers: only odd threads store their key over a
//                            default of `-1 - threadIdx.x`: the even
//                            threads' defaults meet across blocks: racy.
//  * bucket_bounds_no_halo:  no halo: thread 0 reads a cell no thread
//                            wrote, any value: racy.
//  * run_starts_overwritten: a second interval overwrites one cell of the
//                            tile: the first interval's value is not what
//                            is read, and a key equal to the new value
//                            meets it: racy.
// expect-kernel: bucket_bounds verified
// expect-kernel: run_starts verified
// expect-kernel: run_starts_unsorted unknown
// expect-kernel: run_starts_skip racy
// expect-kernel: run_starts_odd_writers racy
// expect-kernel: bucket_bounds_no_halo racy
// expect-kernel: run_starts_overwritten racy
// syncscope-args: --block-dim 128

__global__ void bucket_bounds(const unsigned *keys, unsigned *lo, unsigned *hi, int count)
{
#ifdef __SYNCSCOPE__
    __requires(__sorted(keys));
#endif
    __shared__ unsigned left[129];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned mine = 0;
    if (g < count) {
        mine = keys[g];
        left[threadIdx.x + 1] = mine;
        if (threadIdx.x == 0 && g > 0)
            left[0] = keys[g - 1];
    }
    __syncthreads();
    if (g < count) {
        unsigned prev = left[threadIdx.x];
        if (g == 0 || prev != mine) {
            lo[mine] = g;
            if (g > 0)
                hi[prev] = g;
        }
        if (g == count - 1)
            hi[mine] = g + 1;
    }
}

__global__ void run_starts(const int *keys, int *start, int count)
{
#ifdef __SYNCSCOPE__
    __requires(__sorted(keys));
#endif
    __shared__ int tile[128];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < count)
        tile[threadIdx.x] = keys[g];
    __syncthreads();
    if (g < count && threadIdx.x > 0 && tile[threadIdx.x - 1] != tile[threadIdx.x])
        start[tile[threadIdx.x]] = g;
}

__global__ void run_starts_unsorted(const int *keys, int *start, int count)
{
    __shared__ int tile[128];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < count)
        tile[threadIdx.x] = keys[g];
    __syncthreads();
    if (g < count && threadIdx.x > 0 && tile[threadIdx.x - 1] != tile[threadIdx.x])
        start[tile[threadIdx.x]] = g; //~ unconfirmed
}

__global__ void run_starts_skip(const int *keys, int *start, int count)
{
#ifdef __SYNCSCOPE__
    __requires(__sorted(keys));
#endif
    __shared__ int tile[128];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < count)
        tile[threadIdx.x] = keys[g];
    __syncthreads();
    if (g < count && threadIdx.x > 1 && tile[threadIdx.x - 2] != tile[threadIdx.x])
        start[tile[threadIdx.x]] = g; //~ data-race
}

__global__ void run_starts_odd_writers(const int *keys, int *start, int count)
{
#ifdef __SYNCSCOPE__
    __requires(__sorted(keys));
#endif
    __shared__ int tile[128];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = -1 - (int)threadIdx.x;
    if (g < count && threadIdx.x % 2 == 1)
        tile[threadIdx.x] = keys[g];
    __syncthreads();
    if (g < count && threadIdx.x > 0 && tile[threadIdx.x - 1] != tile[threadIdx.x])
        start[tile[threadIdx.x]] = g; //~ data-race
}

__global__ void bucket_bounds_no_halo(const unsigned *keys, unsigned *hi, int count)
{
#ifdef __SYNCSCOPE__
    __requires(__sorted(keys));
#endif
    __shared__ unsigned left[129];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned mine = 0;
    if (g < count) {
        mine = keys[g];
        left[threadIdx.x + 1] = mine;
    }
    __syncthreads();
    if (g < count && g > 0) {
        unsigned prev = left[threadIdx.x];
        if (prev != mine)
            hi[prev] = g; //~ data-race
    }
}

__global__ void run_starts_overwritten(const int *keys, int *start, int count)
{
#ifdef __SYNCSCOPE__
    __requires(__sorted(keys));
#endif
    __shared__ int tile[128];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < count)
        tile[threadIdx.x] = keys[g];
    __syncthreads();
    if (threadIdx.x == 64)
        tile[64] = 7;
    __syncthreads();
    if (g < count && threadIdx.x > 0 && tile[threadIdx.x - 1] != tile[threadIdx.x])
        start[tile[threadIdx.x]] = g; //~ data-race
}
