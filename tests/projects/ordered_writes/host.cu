// Host code of ordered_writes/rows.cu: widths set after their declaration.
#include <cuda_runtime.h>

#define ROW_THREADS 64

__global__ void rows_rewritten(int *out, int w);
__global__ void rows_scaled(int *out, int w);
__global__ void rows_narrowed(int *out, int w);
__global__ void rows_maybe(int *out, int w);
__global__ void rows_by_pointer(int *out, int w);
__global__ void rows_by_lambda(int *out, int w);
__global__ void rows_switched(int *out, int w);

static void pick_width(int *w, int wide)
{
    *w = wide ? 128 : 16;
}

void run(int *out, int rows, int mode)
{
    int w = 16;
    w = 128;
    rows_rewritten<<<rows, ROW_THREADS>>>(out, w);

    int s = 16;
    s *= 4;
    rows_scaled<<<rows, ROW_THREADS>>>(out, s);

    int n = 128;
    n = 32;
    rows_narrowed<<<rows, ROW_THREADS>>>(out, n);

    int m = 128;
    if (mode > 2)
        m = 16;
    rows_maybe<<<rows, ROW_THREADS>>>(out, m);

    int p = 128;
    pick_width(&p, mode);
    rows_by_pointer<<<rows, ROW_THREADS>>>(out, p);

    int l = 16;
    auto narrow = [&]() { l = 16; };
    l = 128;
    narrow();
    rows_by_lambda<<<rows, ROW_THREADS>>>(out, l);

    int c = 16;
    switch (mode) {
    case 0:
        c = 128;
    case 1:
        rows_switched<<<rows, ROW_THREADS>>>(out, c);
        break;
    }
}
