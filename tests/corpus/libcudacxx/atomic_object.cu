// Issue 28 item 1: libcu++'s `cuda::atomic<T, scope>` objects in shared
// memory and in global memory (through a pointer parameter), used through
// their members and operators. Every access to the counters is atomic
// (`fetch_add`, `+=`, `++`, `load`, `store`, `exchange`,
// `compare_exchange_strong`, `fetch_min/max/and/or/xor`, the implicit
// load): verified. The racy twins mix one plain access of the same cell
// into the atomic ones: a plain read of the object's cell through a
// pointer to its value type (`peek_plain`), and a plain reset of a
// `cuda::std::atomic` through a cast (`reset_plain`). The barriers of
// `count_block_hits` are redundant for races: atomics never race with
// atomics, and no ordering is claimed from them (issue 28 item 2).
// syncscope-args: --block-dim 256 --grid-dim 32
// expect-kernel: count_block_hits verified
// expect-kernel: global_members verified
// expect-kernel: peek_plain racy
// expect-kernel: reset_plain racy

#include <cuda/atomic>
#include <cuda/std/atomic>

__global__ void count_block_hits(int *per_block, const int *keys, int key)
{
    __shared__ cuda::atomic<int, cuda::thread_scope_block> hits;
    if (threadIdx.x == 0)
        hits.store(0, cuda::memory_order_relaxed);
    __syncthreads(); //~ redundant-barrier
    int k = keys[blockIdx.x * blockDim.x + threadIdx.x];
    if (k == key)
        hits.fetch_add(1, cuda::memory_order_relaxed);
    if (k < 0)
        hits += 2;
    if (k > key)
        ++hits;
    __syncthreads(); //~ redundant-barrier
    if (threadIdx.x == 0)
        per_block[blockIdx.x] = hits;
}

__global__ void global_members(cuda::atomic<unsigned, cuda::thread_scope_device> *stats,
                               int *out, const unsigned *in)
{
    unsigned v = in[blockIdx.x * blockDim.x + threadIdx.x];
    stats[0].fetch_min(v);
    stats[1].fetch_max(v);
    stats[2].fetch_or(v);
    stats[3].fetch_and(v);
    stats[4].fetch_xor(v);
    stats[5] -= 1u;
    stats[6]--;
    unsigned seen = stats[7].exchange(v, cuda::memory_order_acq_rel);
    unsigned expected = 0;
    stats[8].compare_exchange_strong(expected, v);
    unsigned now = stats[9].load(cuda::memory_order_acquire);
    unsigned total = stats[10];
    stats[11] = v;
    out[blockIdx.x * blockDim.x + threadIdx.x] = seen + expected + now + total;
}

__global__ void peek_plain(cuda::atomic<int> *counter, const int *values, int *out)
{
    counter->fetch_add(values[threadIdx.x]); //~ data-race
    if (threadIdx.x == 0)
        out[blockIdx.x] = *reinterpret_cast<int *>(counter); //~ data-race
}

__global__ void reset_plain(cuda::std::atomic<int> *counter, int *out)
{
    if (threadIdx.x == 0)
        *reinterpret_cast<int *>(counter) = blockIdx.x; //~ data-race
    int seen = counter->load(); //~ data-race
    out[blockIdx.x * blockDim.x + threadIdx.x] = seen;
}
