// Issue 28 item 1: `cuda::atomic_ref<T, scope>` over a cell of an ordinary
// array (a local reference declared over `x[i]`, a temporary), and helpers
// that cast a `T*` to `cuda::atomic<T>*` and call its members. Every
// access to the array is atomic: verified (`histogram_ref`,
// `max_by_helper`). The racy twins read the cell plainly while others
// update it through the reference (`histogram_plain_read`), and write it
// plainly while a helper loads it atomically (`store_then_helper`).
// syncscope-args: --block-dim 256 --grid-dim 32
// expect-kernel: histogram_ref verified
// expect-kernel: max_by_helper verified
// expect-kernel: histogram_plain_read racy
// expect-kernel: store_then_helper racy

#include <cuda/atomic>

__device__ int load_relaxed(int *p)
{
    // (the race of `store_then_helper` is reported here, at the load)
    return reinterpret_cast<cuda::atomic<int, cuda::thread_scope_device> *>(p)->load( //~ data-race
        cuda::memory_order_relaxed);
}

__device__ void raise_to(int *p, int v)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> cell(*p);
    cell.fetch_max(v);
}

__global__ void histogram_ref(int *bins, const int *data, int nbins)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int b = data[i] % nbins;
    cuda::atomic_ref<int, cuda::thread_scope_device> bin(bins[b]);
    bin.fetch_add(1, cuda::memory_order_relaxed);
    bin++;
    cuda::atomic_ref<int, cuda::thread_scope_device>(bins[0]).fetch_add(1);
}

__global__ void max_by_helper(int *best, const int *score, int *seen)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    raise_to(best, score[i]);
    seen[i] = load_relaxed(best);
}

__global__ void histogram_plain_read(int *bins, const int *data, int nbins, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    cuda::atomic_ref<int, cuda::thread_scope_device> bin(bins[data[i] % nbins]);
    bin.fetch_add(1); //~ data-race
    if (i == 0)
        out[0] = bins[0]; //~ data-race
}

__global__ void store_then_helper(int *flag, int *seen)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        flag[0] = blockIdx.x; //~ data-race
    seen[i] = load_relaxed(flag);
}
