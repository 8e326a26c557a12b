// Arrays produced by a Thrust scan or sort in another file of the project
// (host.cpp), through the helpers around it (issue #27 cause 4, #28 item
// 7): the scan and the sort are helpers defined here and only declared in
// host.cpp, and each kernel is launched by a host function of this file
// that host.cpp calls right after the helper. The launch fact is read
// through the call: the launch function's parameters bound to host.cpp's
// arguments (`docs/diagnostics.md`, facts the host code establishes).
//  * gather_marked:   the offsets scanned from the marks by `scan_marks`
//                     just before every call of `launch_gather`: verified.
//  * gather_cleared:  the offsets cleared with `cudaMemset` between the
//                     scan and the call: no fact, racy.
//  * gather_elsewhere: the offsets are the scan of another array than the
//                     marks the kernel is given: no fact, racy.
//  * gather_twice:    its launch function is also called once with
//                     offsets nothing scanned: no fact, racy.
//  * gather_nested:   launched by `launch_nested`, which host.cpp calls
//                     only from `forward_nested`, which it calls right
//                     after the scan (two calls between scan and launch):
//                     verified.
//  * gather_pointer:  scanned before its launch function's one call, but
//                     host.cpp also takes that function's address (a call
//                     through it is not seen): no fact, racy.
//  * gather_poked:    a host helper run between the scan and the call
//                     writes through a global pointer (which may hold the
//                     offsets): no fact, racy.
//  * cell_heads:      the keys sorted by `sort_keys` before every call of
//                     `launch_heads`, which sizes its grid with a helper
//                     that only computes: verified.
//  * cell_heads_half: only the first half of the keys sorted, all of them
//                     read: no fact, racy.
// expect-kernel: gather_marked verified
// expect-kernel: gather_cleared racy
// expect-kernel: gather_elsewhere racy
// expect-kernel: gather_twice racy
// expect-kernel: gather_nested verified
// expect-kernel: gather_pointer racy
// expect-kernel: gather_poked racy
// expect-kernel: cell_heads verified
// expect-kernel: cell_heads_half racy
#include <cuda_runtime.h>
#include <thrust/device_ptr.h> //~ include
#include <thrust/scan.h> //~ include
#include <thrust/sort.h> //~ include

__global__ void gather_marked(unsigned *dense, const unsigned *mark, const unsigned *offset, unsigned total)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total && mark[t] != 0)
        dense[offset[t]] = t;
}

__global__ void gather_cleared(unsigned *dense, const unsigned *mark, const unsigned *offset, unsigned total)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total && mark[t] != 0)
        dense[offset[t]] = t; //~ data-race
}

__global__ void gather_elsewhere(unsigned *dense, const unsigned *mark, const unsigned *offset, unsigned total)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total && mark[t] != 0)
        dense[offset[t]] = t; //~ data-race
}

__global__ void gather_twice(unsigned *dense, const unsigned *mark, const unsigned *offset, unsigned total)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total && mark[t] != 0)
        dense[offset[t]] = t; //~ data-race
}

__global__ void gather_nested(unsigned *dense, const unsigned *mark, const unsigned *offset, unsigned total)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total && mark[t] != 0)
        dense[offset[t]] = t;
}

__global__ void gather_pointer(unsigned *dense, const unsigned *mark, const unsigned *offset, unsigned total)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total && mark[t] != 0)
        dense[offset[t]] = t; //~ data-race
}

__global__ void gather_poked(unsigned *dense, const unsigned *mark, const unsigned *offset, unsigned total)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total && mark[t] != 0)
        dense[offset[t]] = t; //~ data-race
}

__global__ void cell_heads(unsigned *head, const unsigned *cell, unsigned total)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total && (t == 0 || cell[t] != cell[t - 1]))
        head[cell[t]] = t;
}

__global__ void cell_heads_half(unsigned *head, const unsigned *cell, unsigned total)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total && (t == 0 || cell[t] != cell[t - 1]))
        head[cell[t]] = t; //~ data-race
}

extern "C" void scan_marks(unsigned *offset, unsigned *mark, unsigned total)
{
    thrust::exclusive_scan(thrust::device_ptr<unsigned>(mark),
                           thrust::device_ptr<unsigned>(mark + total),
                           thrust::device_ptr<unsigned>(offset));
}

extern "C" void sort_keys(unsigned *cell, unsigned *order, unsigned total)
{
    thrust::sort_by_key(thrust::device_ptr<unsigned>(cell),
                        thrust::device_ptr<unsigned>(cell + total),
                        thrust::device_ptr<unsigned>(order));
}

static unsigned round_up(unsigned total, unsigned part)
{
    return (total + part - 1) / part;
}

static void blocks_for(unsigned total, unsigned width, unsigned &blocks, unsigned &threads)
{
    threads = width < total ? width : total;
    blocks = round_up(total, threads);
}

extern "C" void launch_gather(unsigned *dense, unsigned *mark, unsigned *offset, unsigned total)
{
    gather_marked<<<(total + 127) / 128, 128>>>(dense, mark, offset, total);
}

extern "C" void launch_cleared(unsigned *dense, unsigned *mark, unsigned *offset, unsigned total)
{
    gather_cleared<<<(total + 127) / 128, 128>>>(dense, mark, offset, total);
}

extern "C" void launch_elsewhere(unsigned *dense, unsigned *mark, unsigned *offset, unsigned total)
{
    gather_elsewhere<<<(total + 127) / 128, 128>>>(dense, mark, offset, total);
}

extern "C" void launch_twice(unsigned *dense, unsigned *mark, unsigned *offset, unsigned total)
{
    gather_twice<<<(total + 127) / 128, 128>>>(dense, mark, offset, total);
}

extern "C" void launch_nested(unsigned *dense, unsigned *mark, unsigned *offset, unsigned total)
{
    gather_nested<<<(total + 127) / 128, 128>>>(dense, mark, offset, total);
}

extern "C" void launch_pointer(unsigned *dense, unsigned *mark, unsigned *offset, unsigned total)
{
    gather_pointer<<<(total + 127) / 128, 128>>>(dense, mark, offset, total);
}

extern "C" void launch_poked(unsigned *dense, unsigned *mark, unsigned *offset, unsigned total)
{
    gather_poked<<<(total + 127) / 128, 128>>>(dense, mark, offset, total);
}

extern "C" void launch_heads(unsigned *head, unsigned *cell, unsigned total)
{
    unsigned blocks, threads;
    blocks_for(total, 256, blocks, threads);
    cudaMemset(head, 0xff, 4096 * sizeof(unsigned));
    cell_heads<<<blocks, threads>>>(head, cell, total);
}

extern "C" void launch_heads_half(unsigned *head, unsigned *cell, unsigned total)
{
    cell_heads_half<<<(total + 255) / 256, 256>>>(head, cell, total);
}
