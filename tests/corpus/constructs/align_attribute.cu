// syncscope-args: --block-dim 128 --grid-dim 4
// CUDA's `__align__(N)` on `__shared__` arrays, on a struct and on a
// local: an attribute of where the object starts, not of which cells two
// accesses name. The kernels parse and are checked as without it.
// expect-kernel: aligned_tiles verified
// expect-kernel: aligned_tiles_unsynced racy
// expect-kernel: aligned_pairs verified

struct __align__(8) Pair {
    int lo;
    int hi;
};

// Each thread stages its cell in an aligned byte tile and an aligned int
// tile, then reads its neighbour's after the barrier.
__global__ void aligned_tiles(int *out, const int *in)
{
    __shared__ unsigned char __align__(8) marks[128];
    __shared__ int __align__(16) tile[128];
    unsigned t = threadIdx.x;
    marks[t] = (unsigned char)(t & 0xff);
    tile[t] = in[blockIdx.x * 128 + t];
    __syncthreads();
    unsigned next = (t + 1) % 128;
    out[blockIdx.x * 128 + t] = tile[next] + marks[next];
}

// Without the barrier the neighbour's cell is read while it is written.
__global__ void aligned_tiles_unsynced(int *out, const int *in)
{
    __shared__ int __align__(16) tile[128];
    unsigned t = threadIdx.x;
    tile[t] = in[blockIdx.x * 128 + t]; //~ data-race
    unsigned next = (t + 1) % 128;
    out[blockIdx.x * 128 + t] = tile[next]; //~ data-race
}

// An aligned struct type and an aligned local of a thread's own.
__global__ void aligned_pairs(int *out, const int *in)
{
    unsigned i = blockIdx.x * 128 + threadIdx.x;
    Pair p;
    p.lo = in[i];
    p.hi = in[i] + 1;
    int __align__(8) sum = p.lo + p.hi;
    out[i] = sum;
}
