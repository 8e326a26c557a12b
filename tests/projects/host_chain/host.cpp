// Host code of host_chain/kernels.cu: the helpers and launch functions are
// defined there, declared here.
#include <cstdio>
#include <cuda_runtime.h>

extern "C" void scan_marks(unsigned *offset, unsigned *mark, unsigned total);
extern "C" void sort_keys(unsigned *cell, unsigned *order, unsigned total);
extern "C" void launch_gather(unsigned *dense, unsigned *mark, unsigned *offset, unsigned total);
extern "C" void launch_cleared(unsigned *dense, unsigned *mark, unsigned *offset, unsigned total);
extern "C" void launch_elsewhere(unsigned *dense, unsigned *mark, unsigned *offset, unsigned total);
extern "C" void launch_twice(unsigned *dense, unsigned *mark, unsigned *offset, unsigned total);
extern "C" void launch_nested(unsigned *dense, unsigned *mark, unsigned *offset, unsigned total);
extern "C" void launch_pointer(unsigned *dense, unsigned *mark, unsigned *offset, unsigned total);
extern "C" void launch_poked(unsigned *dense, unsigned *mark, unsigned *offset, unsigned total);
extern "C" void launch_heads(unsigned *head, unsigned *cell, unsigned total);
extern "C" void launch_heads_half(unsigned *head, unsigned *cell, unsigned total);

unsigned *d_dense, *d_mark, *d_offset, *d_other, *d_head, *d_cell, *d_order;
unsigned cells;

unsigned compact(unsigned total)
{
    scan_marks(d_offset, d_mark, total);
    unsigned last = 0;
    cudaMemcpy(&last, d_offset + total - 1, sizeof(unsigned), cudaMemcpyDeviceToHost);
    if (last == 0) {
        return 0;
    }
    launch_gather(d_dense, d_mark, d_offset, total);

    scan_marks(d_offset, d_mark, total);
    cudaMemset(d_offset, 0, total * sizeof(unsigned));
    launch_cleared(d_dense, d_mark, d_offset, total);

    scan_marks(d_offset, d_other, total);
    launch_elsewhere(d_dense, d_mark, d_offset, total);

    scan_marks(d_offset, d_mark, total);
    launch_twice(d_dense, d_mark, d_offset, total);
    return last;
}

void compact_again(unsigned total)
{
    launch_twice(d_dense, d_mark, d_offset, total);
}

static void forward_nested(unsigned *dense, unsigned *mark, unsigned *offset, unsigned total)
{
    printf("packing %u\n", total);
    launch_nested(dense, mark, offset, total);
}

void compact_nested(unsigned total)
{
    scan_marks(d_offset, d_mark, total);
    forward_nested(d_dense, d_mark, d_offset, total);
}

typedef void (*launcher)(unsigned *, unsigned *, unsigned *, unsigned);
launcher chosen = launch_pointer;

void compact_pointer(unsigned total)
{
    scan_marks(d_offset, d_mark, total);
    launch_pointer(d_dense, d_mark, d_offset, total);
}

unsigned *d_alias;

static void poke_alias(unsigned total)
{
    unsigned last = total - 1;
    d_alias[last] = 0;
}

void compact_poked(unsigned total)
{
    scan_marks(d_offset, d_mark, total);
    poke_alias(total);
    launch_poked(d_dense, d_mark, d_offset, total);
}

void cell_lists(unsigned total)
{
    sort_keys(d_cell, d_order, total);
    launch_heads(d_head, d_cell, total);
    printf("%u cells\n", cells);

    unsigned half = total / 2;
    sort_keys(d_cell, d_order, half);
    launch_heads_half(d_head, d_cell, total);
}
