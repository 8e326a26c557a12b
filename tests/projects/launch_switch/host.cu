// Host code of launch_switch/kernels.cu: a block size picked at run time
// and dispatched to a kernel instantiated for it by a `switch`.
#include <cuda_runtime.h>

template <unsigned int Width> __global__ void stamp_rows(int *rows);
template <unsigned int Width> __global__ void stamp_fallthrough(int *rows);
template <unsigned int Width> __global__ void stamp_default(int *rows);
template <unsigned int Width> __global__ void stamp_grouped(int *rows);

void stamp_all(int *rows, int blocks, int threads)
{
    dim3 block(threads, 1, 1);
    switch (threads) {
    case 256:
        stamp_rows<256><<<blocks, block>>>(rows);
        break;
    case 128:
        stamp_rows<128><<<blocks, block>>>(rows);
        break;
    case 64:
        stamp_rows<64><<<blocks, block>>>(rows);
        break;
    }

    // The 256 label runs on into the 128 one: `stamp_fallthrough<128>`
    // also runs with 256 threads.
    switch (threads) {
    case 256:
        stamp_fallthrough<256><<<blocks, block>>>(rows);
    case 128:
        stamp_fallthrough<128><<<blocks, block>>>(rows);
        break;
    }

    // Any other size runs the 64-wide instance.
    switch (threads) {
    case 128:
        stamp_default<128><<<blocks, block>>>(rows);
        break;
    default:
        stamp_default<64><<<blocks, block>>>(rows);
        break;
    }

    // Two labels of one launch: either size, each wide enough.
    switch (threads) {
    case 32:
    case 64:
        stamp_grouped<64><<<blocks, block>>>(rows);
        break;
    }
}
