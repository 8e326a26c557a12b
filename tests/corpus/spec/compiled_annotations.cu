// Annotations in the forms a real build compiles (issue 32 item 4):
// `#include "syncscope.h"` (known to the analysis without an include folder)
// and `#ifdef __SYNCSCOPE__` around the claim. Syncscope defines
// `__SYNCSCOPE__`, so both are the same assumption as a bare `__requires`.
//  * window_sum:          each block reads a window of `width` cells and
//                         writes its own; `width <= 8` rules out the
//                         neighbour's window: verified.
//  * window_sum_unbound:  the same claim under `#ifdef SOMETHING_ELSE`,
//                         which is not defined: the claim is not there and
//                         a wide window overlaps the next block's output: racy.
//  * window_sum_header:   the plain annotation (the header included): verified.
//  * window_sum_loose:    the header's form with `width <= 16`: still racy.
// expect-kernel: window_sum verified
// expect-kernel: window_sum_unbound racy
// expect-kernel: window_sum_header verified
// expect-kernel: window_sum_loose racy
#include "syncscope.h"

__global__ void window_sum(int *data, int width)
{
#ifdef __SYNCSCOPE__
    __requires(width >= 1 && width <= 8);
#endif
    if (threadIdx.x == 0) {
        int acc = 0;
        for (int k = 0; k < width; ++k) {
            acc += data[blockIdx.x * 16 + 8 + k];
        }
        data[blockIdx.x * 16] = acc;
    }
}

__global__ void window_sum_unbound(int *data, int width)
{
#ifdef SOMETHING_ELSE
    __requires(width >= 1 && width <= 8);
#endif
    if (threadIdx.x == 0) {
        int acc = 0;
        for (int k = 0; k < width; ++k) {
            acc += data[blockIdx.x * 16 + 8 + k];
        }
        data[blockIdx.x * 16] = acc; //~ data-race
    }
}

__global__ void window_sum_header(int *data, int width)
{
    __requires(width >= 1 && width <= 8);
    if (threadIdx.x == 0) {
        int acc = 0;
        for (int k = 0; k < width; ++k) {
            acc += data[blockIdx.x * 16 + 8 + k];
        }
        data[blockIdx.x * 16] = acc;
    }
}

__global__ void window_sum_loose(int *data, int width)
{
    __requires(width >= 1 && width <= 16);
    if (threadIdx.x == 0) {
        int acc = 0;
        for (int k = 0; k < width; ++k) {
            acc += data[blockIdx.x * 16 + 8 + k];
        }
        data[blockIdx.x * 16] = acc; //~ data-race
    }
}
