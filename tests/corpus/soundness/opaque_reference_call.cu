// Issue 17 item 4. A function without a body whose parameter is a
// non-const reference may write the cell it receives: every thread passing
// `s[0]` to `bump` writes the same cell. Through a `const` reference it can
// only read, so `peek_all` is race-free.
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: bump_same_cell racy
// expect-kernel: bump_own_cell verified
// expect-kernel: peek_all verified
// expect-kernel: bump_in_namespace racy

__device__ void bump(int &x);
__device__ int peek(const int &x);
namespace helpers {
__device__ void add_one(int &x);
}

__global__ void bump_same_cell(int *out)
{
    __shared__ int s[64];
    bump(s[0]); //~ data-race
    out[threadIdx.x] = 0;
}

__global__ void bump_own_cell(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    bump(s[t]);
    out[t] = s[t];
}

__global__ void peek_all(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    out[t] = peek(s[0]);
}

__global__ void bump_in_namespace(int *out)
{
    __shared__ int s[64];
    helpers::add_one(s[threadIdx.x / 2]); //~ data-race
    out[threadIdx.x] = 0;
}
