// Issue 15: reductions by commutative atomics are order-independent:
// counting with `atomicAdd`/`atomicSub`, the maximum with `atomicMax`,
// flags with `atomicOr`. Whatever order the threads take, the cells end
// with the same value, so `--deterministic` reports nothing. (A
// floating-point `atomicAdd` is treated the same way: its rounding order
// is left out, see docs/diagnostics.md.)
// syncscope-args: --deterministic --block-dim 128 --grid-dim 8
// expect-kernel: count_positive verified
// expect-kernel: balance verified
// expect-kernel: max_key verified
// expect-kernel: any_flags verified
// expect-kernel: float_sum verified

__global__ void count_positive(const int *in, int n, int *count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0)
        atomicAdd(count, 1);
}

__global__ void balance(const int *deposits, const int *withdrawals, int *account)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(account, deposits[i]);
    atomicSub(account, withdrawals[i]);
}

__global__ void max_key(const int *keys, int *best)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicMax(&best[blockIdx.x], keys[i]);
}

__global__ void any_flags(const unsigned int *masks, unsigned int *all)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicOr(all, masks[i]);
}

__global__ void float_sum(const float *x, float *sum)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(sum, x[i]);
}
