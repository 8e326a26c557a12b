// Item 3 of issue 19: the values atomicAdd/atomicSub with a non-zero
// constant step return on one counter are distinct between threads
// (tickets), when the kernel changes the counter only that way (a plain
// write may set it up before the first add, ordered by a barrier). So the
// stores at the tickets do not collide: `append_selected` (global queue,
// template, launch site), `gather_block_hits` (a block-local queue in
// shared memory, zeroed by thread 0 first) and `pop_from_top` (atomicSub)
// are verified. The racy twins: two threads share a slot when the ticket
// is halved (`pair_slots`: tickets 0 and 1 both give slot 0), when the step
// may be zero (`append_weighted`: atomicAdd(count, w) with w read from
// memory), and when the counter is reset while others take tickets
// (`append_with_reset`), and when a per-block counter in shared memory
// indexes global memory (`block_slots_collide`: every block's first ticket
// is 0).
// syncscope-args: --block-dim 256 --grid-dim 64
// expect-kernel: append_selected verified
// expect-kernel: gather_block_hits verified
// expect-kernel: pop_from_top verified
// expect-kernel: pair_slots racy
// expect-kernel: append_weighted racy
// expect-kernel: append_with_reset racy
// expect-kernel: block_slots_collide racy

#define BLOCK 256
#define TAKE_SLOT(counter) atomicAdd((counter), 1)

template <typename T>
__global__ void append_selected(T *queue, int *tail, const T *items, int n, T threshold)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n && items[i] > threshold) {
        int slot = TAKE_SLOT(tail);
        queue[slot] = items[i];
    }
}

__global__ void gather_block_hits(int *hits, const int *keys, int key)
{
    __shared__ int s_count;
    __shared__ int s_hits[BLOCK];
    if (threadIdx.x == 0)
        s_count = 0;
    __syncthreads();
    int k = keys[blockIdx.x * BLOCK + threadIdx.x];
    if (k == key) {
        int slot = atomicAdd(&s_count, 1);
        s_hits[slot] = threadIdx.x;
    }
    __syncthreads();
    if (threadIdx.x < s_count)
        hits[blockIdx.x * BLOCK + threadIdx.x] = s_hits[threadIdx.x];
}

__global__ void pop_from_top(float *out, const float *stack, int *top)
{
    int slot = atomicSub(top, 1) - 1;
    out[slot] = 2.0f * stack[blockIdx.x * BLOCK + threadIdx.x];
}

__global__ void pair_slots(float *out, int *count, const float *in)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int slot = atomicAdd(count, 1) / 2;
    out[slot] = in[i]; //~ data-race
}

__global__ void append_weighted(float *out, int *count, const float *in, const int *weight)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int slot = atomicAdd(count, weight[i]);
    out[slot] = in[i]; //~ data-race
}

__global__ void append_with_reset(float *out, int *count, const float *in)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int slot = atomicAdd(count, 1); //~ data-race
    out[slot] = in[i]; //~ data-race
    if (i == 0)
        *count = 0; //~ data-race
}

__global__ void block_slots_collide(int *hits, const int *keys, int key)
{
    __shared__ int s_count;
    if (threadIdx.x == 0)
        s_count = 0;
    __syncthreads();
    if (keys[blockIdx.x * BLOCK + threadIdx.x] == key) {
        int slot = atomicAdd(&s_count, 1);
        hits[slot] = blockIdx.x * BLOCK + threadIdx.x; //~ data-race
    }
}

void launch_append(float *queue, int *tail, const float *items, int n)
{
    append_selected<float><<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(queue, tail, items, n, 0.5f);
}
