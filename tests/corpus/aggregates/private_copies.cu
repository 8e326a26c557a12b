// syncscope-args: --block-dim 128 --grid-dim 4
// `memcpy` between a thread's own struct object and its own local array:
// private memory on both sides (the object's members become unknown
// values of that thread), so only the stores that follow decide.
// expect-kernel: unpack_into_struct verified
// expect-kernel: unpack_into_struct_overlap racy
// expect-kernel: pack_from_struct verified

struct Quad {
    unsigned a, b, c, d;
};

// Four sums packed into a struct by memcpy, stored to the thread's own cells.
__global__ void unpack_into_struct(unsigned *out, const unsigned *in)
{
    unsigned i = blockIdx.x * 128 + threadIdx.x;
    unsigned sums[4] = {};
    for (int k = 0; k < 4; ++k) {
        sums[k] = in[4 * i + k] + (k > 0 ? sums[k - 1] : 0);
    }
    Quad q;
    memcpy(&q, sums, sizeof(q));
    out[2 * i] = q.a + q.d;
    out[2 * i + 1] = q.b + q.c;
}

// The same, one cell per thread apart: the second store is the next
// thread's first.
__global__ void unpack_into_struct_overlap(unsigned *out, const unsigned *in)
{
    unsigned i = blockIdx.x * 128 + threadIdx.x;
    unsigned sums[4] = {};
    for (int k = 0; k < 4; ++k) {
        sums[k] = in[4 * i + k];
    }
    Quad q;
    memcpy(&q, sums, sizeof(q));
    out[i] = q.a; //~ data-race
    out[i + 1] = q.b; //~ data-race
}

// The other way: a struct copied out into a local array.
__global__ void pack_from_struct(unsigned *out, const unsigned *in)
{
    unsigned i = blockIdx.x * 128 + threadIdx.x;
    Quad q;
    q.a = in[i];
    q.b = q.a * 2;
    q.c = q.a * 3;
    q.d = q.a * 4;
    unsigned cells[4];
    memcpy(cells, &q, sizeof(cells));
    out[i] = cells[0] + cells[3];
}
