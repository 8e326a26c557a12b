// Issue 26 hole 8: two threads write the same value only if they do on the
// machine, in its 32- and 64-bit words and IEEE floats, not merely in
// mathematical arithmetic. `base + t < base` is false for every thread in
// integers, but the unsigned sum carries for some threads and not for
// others; `(a + b) + c` and `a + (b + c)` are one real number but may round
// to two floats; `k - t` wraps to a huge unsigned number for `t > k`. Such
// writes are data races. Values that are equal on the machine stay
// benign: a constant, one expression of block-uniform values, a small
// in-range computation every thread of the block does on the same inputs.
// syncscope-args: --block-dim 512 --grid-dim 4
// expect-kernel: carry_flag racy
// expect-kernel: carry_flag_in_block racy
// expect-kernel: float_sum_orders racy
// expect-kernel: shifted_difference racy
// expect-kernel: constant_flag verified
// expect-kernel: uniform_sum verified
// expect-kernel: small_quotient verified
// expect-kernel: narrow_carry racy
// expect-kernel: narrow_index racy
// expect-kernel: narrow_lane verified

// Each thread computes whether its offset carries; in integers no sum of
// non-negative numbers is below one of them, so every thread "writes 0".
__global__ void carry_flag(unsigned base, int *wrapped)
{
    unsigned s = base + threadIdx.x;
    wrapped[0] = (s < base); //~ data-race
}

// The same in shared memory, read back by one thread.
__global__ void carry_flag_in_block(unsigned base, int *out)
{
    __shared__ int s_wrapped;
    unsigned s = base + blockIdx.x * blockDim.x + threadIdx.x;
    s_wrapped = s < base; //~ data-race
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = s_wrapped;
}

// Even and odd threads add the same three block-uniform numbers in two
// orders (two even threads compute the same sum: benign).
__global__ void float_sum_orders(const float *in, float *out)
{
    __shared__ float s_total;
    float a = in[3 * blockIdx.x], b = in[3 * blockIdx.x + 1], c = in[3 * blockIdx.x + 2];
    if (threadIdx.x % 2 == 0)
        s_total = (a + b) + c; //~ data-race benign-race
    else
        s_total = a + (b + c); //~ data-race benign-race
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = s_total;
}

// In integers `k - t` is at most k and its quotient by 4294967295 is 0 for
// every thread; on the machine `k - (k + 1)` wraps to 4294967295, whose
// quotient is 1.
__global__ void shifted_difference(unsigned k, unsigned *out)
{
    unsigned d = k - threadIdx.x;
    out[blockIdx.x] = d / 4294967295u; //~ data-race
}

__global__ void constant_flag(const int *in, int *found)
{
    if (in[blockIdx.x * blockDim.x + threadIdx.x] < 0)
        *found = 1; //~ benign-race
}

// One expression of block-uniform values: the same computation everywhere
// in the block, whatever it wraps to.
__global__ void uniform_sum(unsigned base, unsigned *out)
{
    __shared__ unsigned s_first;
    s_first = base + blockIdx.x * blockDim.x; //~ benign-race
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = s_first;
}

// Threads of one warp-sized group compute the same small quotient.
__global__ void small_quotient(int *group_of_block)
{
    __shared__ int s_group;
    if (threadIdx.x < 32)
        s_group = (threadIdx.x + 32 * blockIdx.x) / 32 - blockIdx.x; //~ benign-race
    __syncthreads();
    if (threadIdx.x == 0)
        group_of_block[blockIdx.x] = s_group;
}

// A type narrower than 32 bits wraps: `base + t` stored in an unsigned
// char is below `base` once it passes 255.
__global__ void narrow_carry(unsigned char base, int *wrapped)
{
    unsigned char c = base + threadIdx.x;
    wrapped[0] = (c < base); //~ data-race
}

// The same wrap in an index: threads t and t + 256 meet.
__global__ void narrow_index(int *owner)
{
    unsigned char c = threadIdx.x;
    owner[blockIdx.x * 256 + c] = threadIdx.x; //~ data-race
}

// An index that provably fits its narrow type keeps its value.
__global__ void narrow_lane(int *lane_of)
{
    unsigned char lane = threadIdx.x & 31;
    short warp = threadIdx.x / 32;
    lane_of[blockIdx.x * blockDim.x + warp * 32 + lane] = lane;
}
