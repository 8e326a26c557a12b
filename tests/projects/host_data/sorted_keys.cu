// Cell lists over keys the host sorts with Thrust right before the launch
// (issue #27 cause 4, #28 item 7): in sorted keys each run of one key is
// contiguous, so the element that starts a run (its key differs from its
// left neighbour's) is the only one of its key; the launch fact names the
// sort (`__sorted(key, count)`).
//  * run_starts:        `thrust::sort_by_key` of the keys just before the
//                       launch: verified.
//  * run_starts_policy: `thrust::sort(thrust::device, ..)` through
//                       raw pointers: verified.
//  * run_starts_descending: sorted with a comparator (the order is the
//                       comparator's, not read): no fact, a possible race.
//  * run_starts_late:   the keys are sorted only after the launch: no
//                       fact, a possible race.
//  * run_starts_halves: 64-bit keys sorted, read by the kernel as 32-bit
//                       halves (not sorted as such): no fact, a possible
//                       race.
//  * run_owners:        sorted keys, but every element writes its key's
//                       cell (a run of one key writes it many times): racy.
// expect-kernel: run_starts verified
// expect-kernel: run_starts_policy verified
// expect-kernel: run_starts_descending unknown
// expect-kernel: run_starts_late unknown
// expect-kernel: run_starts_halves unknown
// expect-kernel: run_owners racy
#include <thrust/device_ptr.h> //~ include
#include <thrust/functional.h> //~ include
#include <thrust/sort.h> //~ include

__global__ void run_starts(unsigned *start, const unsigned *key, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count && (i == 0 || key[i] != key[i - 1]))
        start[key[i]] = i;
}

__global__ void run_starts_policy(unsigned *start, const unsigned *key, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count && (i == 0 || key[i] != key[i - 1]))
        start[key[i]] = i;
}

__global__ void run_starts_descending(unsigned *start, const unsigned *key, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count && (i == 0 || key[i] != key[i - 1]))
        start[key[i]] = i; //~ unconfirmed
}

__global__ void run_starts_late(unsigned *start, const unsigned *key, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count && (i == 0 || key[i] != key[i - 1]))
        start[key[i]] = i; //~ unconfirmed
}

__global__ void run_starts_halves(unsigned *start, const unsigned *key, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count && (i == 0 || key[i] != key[i - 1]))
        start[key[i]] = i; //~ unconfirmed
}

__global__ void run_owners(unsigned *owner, const unsigned *key, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        owner[key[i]] = i; //~ data-race
}

void build_cells(unsigned *d_start, unsigned *d_key, unsigned *d_index, unsigned long long *d_wide,
                 unsigned count)
{
    unsigned blocks = (count + 255) / 256;

    thrust::sort_by_key(thrust::device_ptr<unsigned>(d_key),
                        thrust::device_ptr<unsigned>(d_key + count),
                        thrust::device_ptr<unsigned>(d_index));
    cudaMemset(d_start, 0xff, 1024 * sizeof(unsigned));
    run_starts<<<blocks, 256>>>(d_start, d_key, count);

    thrust::sort(thrust::device, d_key, d_key + count);
    run_starts_policy<<<blocks, 256>>>(d_start, d_key, count);

    thrust::sort(thrust::device_ptr<unsigned>(d_key), thrust::device_ptr<unsigned>(d_key + count),
                 thrust::greater<unsigned>());
    run_starts_descending<<<blocks, 256>>>(d_start, d_key, count);

    run_starts_late<<<blocks, 256>>>(d_start, d_key, count);
    thrust::sort(thrust::device_ptr<unsigned>(d_key), thrust::device_ptr<unsigned>(d_key + count));

    thrust::sort(thrust::device_ptr<unsigned long long>(d_wide),
                 thrust::device_ptr<unsigned long long>(d_wide + count));
    run_starts_halves<<<blocks, 256>>>(d_start, (unsigned *)d_wide, count * 2);

    thrust::sort(thrust::device_ptr<unsigned>(d_key), thrust::device_ptr<unsigned>(d_key + count));
    run_owners<<<blocks, 256>>>(d_start, d_key, count);
}
