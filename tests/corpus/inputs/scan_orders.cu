// Prefix sums the code states of an input array (issue 28 item 7):
// `__exclusive_scan(offs, flag)` says `offs` sums the non-negative `flag`
// before each index, `__inclusive_scan` up to and including it; an
// optional last operand bounds the indices the fact covers
// (`__sorted(key, n)`). Stream compaction scatters through such offsets:
// distinct where the flag is set, equal across unset flags.
//  * pack_flagged:          `out[offs[i]]` where `flag[i]` is set, offsets
//                           the exclusive scan of the flags: verified.
//  * pack_flagged_inclusive: `out[offs[i] - 1]` where set, an inclusive
//                           scan: verified.
//  * pack_all:              every element packed, set or not (an unset
//                           flag shares the next offset): racy.
//  * pack_other_flag:       guarded by another array than the scanned
//                           one: racy.
//  * pack_flags_rewritten:  the kernel writes the flags the scan summed:
//                           the statement is set aside: racy.
//  * heads_within:          run heads over keys sorted in `0..n`, the
//                           kernel guarded by `i < n`: verified.
//  * heads_past_extent:     the same keys, but threads up to `n + 32` read
//                           keys past the sorted extent (one block's
//                           threads past `n` collide): racy.
// expect-kernel: pack_flagged verified
// expect-kernel: pack_flagged_inclusive verified
// expect-kernel: pack_all racy
// expect-kernel: pack_other_flag racy
// expect-kernel: pack_flags_rewritten racy
// expect-kernel: heads_within verified
// expect-kernel: heads_past_extent racy

__global__ void pack_flagged(unsigned *out, const unsigned *flag, const unsigned *offs, unsigned n)
{
    __requires(__exclusive_scan(offs, flag, n));
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && flag[i])
        out[offs[i]] = i;
}

__global__ void pack_flagged_inclusive(unsigned *out, const unsigned *flag, const unsigned *offs, unsigned n)
{
    __requires(__inclusive_scan(offs, flag));
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && flag[i] > 0)
        out[offs[i] - 1] = i;
}

__global__ void pack_all(unsigned *out, const unsigned *flag, const unsigned *offs, unsigned n)
{
    __requires(__exclusive_scan(offs, flag, n));
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[offs[i]] = i; //~ data-race
}

__global__ void pack_other_flag(unsigned *out, const unsigned *flag, const unsigned *keep, const unsigned *offs, unsigned n)
{
    __requires(__exclusive_scan(offs, flag, n));
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && keep[i])
        out[offs[i]] = i; //~ data-race
}

__global__ void pack_flags_rewritten(unsigned *out, unsigned *flag, const unsigned *offs, unsigned n)
{
    __requires(__exclusive_scan(offs, flag, n));
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && flag[i]) {
        out[offs[i]] = i; //~ data-race
        flag[i] = 0;
    }
}

__global__ void heads_within(unsigned *head, const unsigned *key, unsigned n)
{
    __requires(__sorted(key, n));
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && (i == 0 || key[i] != key[i - 1]))
        head[key[i]] = i;
}

__global__ void heads_past_extent(unsigned *head, const unsigned *key, unsigned n)
{
    __requires(__sorted(key, n));
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n + 32 && (i == 0 || key[i] != key[i - 1]))
        head[key[i]] = i; //~ data-race
}
