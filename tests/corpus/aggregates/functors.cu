// Functors whose type is known: a struct with a `__device__ operator()`
// passed to a kernel by value. The call `op(x)` is the operator's body
// inlined with the functor's members bound, so accesses it makes through
// pointer members of the functor are checked like any other (a pointer
// member is an array of its own, as for any struct parameter). The type is
// bound by the file's one explicit instantiation of the kernel, or by its
// launch in a project check (written, `map_rows<Clamp><<<..>>>`, or deduced
// from a temporary `Scale{..}` or a host local of that type; the corpus
// harness checks one file without its launches, so the instantiations
// below bind them here). A template parameter nothing binds stays a call
// the model cannot follow.
//  * map_inplace:      a[i] = op(a[i]) with op = Scale: verified.
//  * map_rows:         explicit Clamp reading a lookup table through a
//                      pointer member: verified.
//  * scatter_counts:   non-template functor parameter writing its own
//                      bins[] at the thread's index: verified.
//  * map_neighbour:    op(a[i + 1]) while a[i] is written: racy.
//  * scatter_shared:   the functor adds to one cell every thread writes: racy.
//  * gather_table:     the functor of a host local writes the table it reads
//                      from at a neighbour's index: racy.
//  * map_unbound:      a template functor kernel no launch binds: not-verified.
// syncscope-args: --block-dim 256 --grid-dim 64
// expect-kernel: map_inplace verified
// expect-kernel: map_rows verified
// expect-kernel: scatter_counts verified
// expect-kernel: map_neighbour racy
// expect-kernel: scatter_shared racy
// expect-kernel: gather_table racy
// expect-kernel: map_unbound not-verified

#include <cuda_runtime.h>

struct Scale {
    float factor;
    __device__ float operator()(float x) const { return x * factor; }
};

struct Clamp {
    const float *limits;
    int nlimits;
    __device__ float operator()(float x, int row) const
    {
        float hi = limits[row % nlimits];
        return x > hi ? hi : x;
    }
};

struct CountInto {
    unsigned *bins;
    __device__ void operator()(int slot, unsigned v) const { bins[slot] = v; }
};

struct AddInto {
    float *total;
    __device__ void operator()(float v) const
    {
        total[0] += v; //~ data-race
    }
};

struct SmoothTable {
    float *table;
    __device__ float operator()(int k) const
    {
        float v = table[k + 1]; //~ data-race
        table[k] = 0.5f * v; //~ data-race
        return v;
    }
};

template <class Op>
__global__ void map_inplace(Op op, float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = op(a[i]);
}

template <class Op>
__global__ void map_rows(Op op, float *a, int width)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = op(a[i], i / width);
}

__global__ void scatter_counts(CountInto op, const unsigned *values)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    op(i, values[i]);
}

template <class Op>
__global__ void map_neighbour(Op op, float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1 < n)
        a[i] = op(a[i + 1]); //~ data-race
}

template <typename Op>
__global__ void scatter_shared(Op op, const float *values)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    op(values[i]);
}

template <typename Op>
__global__ void gather_table(Op op, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = op(i);
}

template <class Op>
__global__ void map_unbound(Op op, float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = op(a[i]); //~ not-verified
}

template __global__ void map_inplace<Scale>(Scale, float *, int);
template __global__ void map_rows<Clamp>(Clamp, float *, int);
template __global__ void map_neighbour<Scale>(Scale, float *, int);
template __global__ void scatter_shared<AddInto>(AddInto, const float *);
template __global__ void gather_table<SmoothTable>(SmoothTable, float *);

void run_maps(float *d_a, const float *d_limits, unsigned *d_bins, const unsigned *d_vals,
              float *d_total, float *d_table, float *d_out)
{
    const int n = 64 * 256;
    map_inplace<<<64, 256>>>(Scale{2.0f}, d_a, n);
    map_rows<Clamp><<<64, 256>>>(Clamp{d_limits, 16}, d_a, 256);
    scatter_counts<<<64, 256>>>(CountInto{d_bins}, d_vals);
    map_neighbour<<<64, 256>>>(Scale{0.5f}, d_a, n);
    scatter_shared<<<64, 256>>>(AddInto{d_total}, d_a);
    SmoothTable smooth{d_table};
    gather_table<<<64, 256>>>(smooth, d_out);
    cudaDeviceSynchronize();
}
