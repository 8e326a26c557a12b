// Issue 28 item 1: `fetch_add(1)` on a `cuda::atomic` counter hands out
// tickets like `atomicAdd(&c, 1)`: stores at the returned slots do not
// collide, in global memory (`append_matches`, through a pointer
// parameter; `bump_slots`, the postfix `++` of the object). The racy twins: a halved ticket (`halved_slots`:
// tickets 0 and 1 share slot 0) and a slot computed from the prefix `++`
// minus one that is then reused by a plain write of the same slot
// (`loaded_slot`: the slot is a value loaded from the counter, which many
// threads may see alike).
// syncscope-args: --block-dim 256 --grid-dim 32
// expect-kernel: append_matches verified
// expect-kernel: bump_slots verified
// expect-kernel: halved_slots racy
// expect-kernel: loaded_slot racy

#include <cuda/atomic>

#define BLOCK 256

__global__ void append_matches(int *queue, cuda::atomic<int, cuda::thread_scope_device> *tail,
                               const int *items, int key)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (items[i] == key) {
        int slot = tail->fetch_add(1, cuda::memory_order_relaxed);
        queue[slot] = i;
    }
}

__global__ void bump_slots(int *queue, cuda::atomic<int, cuda::thread_scope_device> *tail)
{
    int slot = (*tail)++;
    queue[slot] = blockIdx.x * BLOCK + threadIdx.x;
}

__global__ void halved_slots(int *queue, cuda::atomic<int> *tail)
{
    int slot = tail->fetch_add(1) / 2;
    queue[slot] = threadIdx.x; //~ data-race
}

__global__ void loaded_slot(int *queue, cuda::atomic<int> *tail)
{
    tail->fetch_add(1);
    int slot = tail->load();
    queue[slot] = threadIdx.x; //~ data-race
}
