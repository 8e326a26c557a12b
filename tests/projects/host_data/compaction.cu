// Stream compaction whose offsets the host computes with Thrust just
// before the launch (issue #27 cause 4, #28 item 7): the exclusive scan of
// unsigned 0/1 marks grows by one at every marked element, so marked
// elements get distinct offsets; the launch fact names the scan
// (`__exclusive_scan(slot, mark, count)`).
//  * pack_marked:          scanned right before its launch (only a copy of
//                          the last offset back to the host between):
//                          verified.
//  * pack_marked_helper:   scanned by a helper whose one statement is the
//                          scan: verified.
//  * pack_marked_inclusive: an inclusive scan, offsets `slot[i] - 1`:
//                          verified.
//  * pack_rewritten:       another kernel writes the offsets between the
//                          scan and the launch: no fact, racy.
//  * pack_signed:          the marks are `int` (a negative mark would make
//                          the scan fall): no fact, racy.
//  * pack_unmarked:        scanned, but every element is packed, marked or
//                          not (unmarked ones share their successor's
//                          offset): racy.
//  * clear_slots:          the kernel that rewrites the offsets: verified.
// expect-kernel: pack_marked verified
// expect-kernel: pack_marked_helper verified
// expect-kernel: pack_marked_inclusive verified
// expect-kernel: pack_rewritten racy
// expect-kernel: pack_signed racy
// expect-kernel: pack_unmarked racy
// expect-kernel: clear_slots verified
#include <cstdio>
#include <thrust/device_ptr.h> //~ include
#include <thrust/scan.h> //~ include

__global__ void pack_marked(unsigned *packed, const unsigned *mark, const unsigned *slot, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count && mark[i])
        packed[slot[i]] = i;
}

__global__ void pack_marked_helper(unsigned *packed, const unsigned *mark, const unsigned *slot, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count && mark[i])
        packed[slot[i]] = i;
}

__global__ void pack_marked_inclusive(unsigned *packed, const unsigned *mark, const unsigned *slot, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count && mark[i] != 0)
        packed[slot[i] - 1] = i;
}

__global__ void pack_rewritten(unsigned *packed, const unsigned *mark, const unsigned *slot, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count && mark[i])
        packed[slot[i]] = i; //~ data-race
}

__global__ void pack_signed(unsigned *packed, const int *mark, const int *slot, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count && mark[i])
        packed[slot[i]] = i; //~ data-race
}

__global__ void pack_unmarked(unsigned *packed, const unsigned *mark, const unsigned *slot, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        packed[slot[i]] = i; //~ data-race
}

__global__ void clear_slots(unsigned *slot, unsigned count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        slot[i] = 0;
}

void offsets_of(unsigned *offsets, unsigned *marks, unsigned count)
{
    thrust::exclusive_scan(thrust::device_ptr<unsigned>(marks),
                           thrust::device_ptr<unsigned>(marks + count),
                           thrust::device_ptr<unsigned>(offsets));
}

unsigned compact(unsigned *d_out, unsigned *d_mark, unsigned *d_slot, int *d_smark, int *d_sslot,
                 unsigned count)
{
    unsigned blocks = (count + 127) / 128;

    thrust::exclusive_scan(thrust::device_ptr<unsigned>(d_mark),
                           thrust::device_ptr<unsigned>(d_mark + count),
                           thrust::device_ptr<unsigned>(d_slot));
    unsigned last = 0;
    cudaMemcpy(&last, d_slot + count - 1, sizeof(unsigned), cudaMemcpyDeviceToHost);
    printf("%u offsets\n", last);
    pack_marked<<<blocks, 128>>>(d_out, d_mark, d_slot, count);

    offsets_of(d_slot, d_mark, count);
    pack_marked_helper<<<blocks, 128>>>(d_out, d_mark, d_slot, count);

    thrust::inclusive_scan(thrust::device_ptr<unsigned>(d_mark),
                           thrust::device_ptr<unsigned>(d_mark + count),
                           thrust::device_ptr<unsigned>(d_slot));
    pack_marked_inclusive<<<blocks, 128>>>(d_out, d_mark, d_slot, count);

    thrust::exclusive_scan(thrust::device_ptr<unsigned>(d_mark),
                           thrust::device_ptr<unsigned>(d_mark + count),
                           thrust::device_ptr<unsigned>(d_slot));
    clear_slots<<<blocks, 128>>>(d_slot, count);
    pack_rewritten<<<blocks, 128>>>(d_out, d_mark, d_slot, count);

    thrust::exclusive_scan(thrust::device_ptr<int>(d_smark),
                           thrust::device_ptr<int>(d_smark + count),
                           thrust::device_ptr<int>(d_sslot));
    pack_signed<<<blocks, 128>>>(d_out, d_smark, d_sslot, count);

    thrust::exclusive_scan(thrust::device_ptr<unsigned>(d_mark),
                           thrust::device_ptr<unsigned>(d_mark + count),
                           thrust::device_ptr<unsigned>(d_slot));
    pack_unmarked<<<blocks, 128>>>(d_out, d_mark, d_slot, count);
    return last;
}
