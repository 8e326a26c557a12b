// Objects of a class template with virtual methods that another kernel made
// and left behind a pointer in global memory (`Bag<float> **bag`). The
// object `*bag` is one object for every thread (the kernel never writes
// `bag`), its data members are memory cells of their own, and a virtual
// call through the base class runs the one overrider the file defines
// (`Tally<float>`). One adder per block taking its slot with `atomicAdd`:
// verified. A plain read of the counter against other blocks' atomic adds,
// and two threads storing different values into one member: racy. A kernel
// that overwrites the pointer it called through, two pointers that may
// designate one object, an object of the device heap, and a pointer member
// of the object that the kernel stores into (a thread the store did not
// reach would see the pointer it held before): not-verified.
// syncscope-args: --block-dim 64 --grid-dim 16
// expect-kernel: one_adder_per_block verified
// expect-kernel: count_read_while_adding racy
// expect-kernel: two_threads_set_the_count racy
// expect-kernel: pointer_overwritten not-verified
// expect-kernel: two_pointers not-verified
// expect-kernel: heap_object not-verified
// expect-kernel: member_repointed not-verified

template <typename T> class Bag {
public:
    __device__ virtual void add(T v) = 0;
    __device__ virtual int count() = 0;
    __device__ virtual void set_count(int n) = 0;
    __device__ virtual void move_to(T *store) = 0;
};

template <typename T> class Tally : public Bag<T> {
public:
    __device__ Tally(T *store) : used(0), items(store) {}
    __device__ virtual void add(T v)
    {
        int at = atomicAdd(&this->used, 1); //~ data-race
        items[at] = v; //~ not-verified
    }
    __device__ virtual int count() { return used; } //~ data-race
    __device__ virtual void set_count(int n) { used = n; } //~ data-race
    __device__ virtual void move_to(T *store) { items = store; }
    int used;
    T *items;
};

__global__ void one_adder_per_block(Bag<float> **bag)
{
    if (threadIdx.x == 0)
        (*bag)->add(blockIdx.x * 0.5f);
}

__global__ void count_read_while_adding(Bag<float> **bag, int *seen)
{
    if (threadIdx.x == 0)
        (*bag)->add(1.0f);
    if (threadIdx.x == 1)
        seen[blockIdx.x] = (*bag)->count();
}

__global__ void two_threads_set_the_count(Bag<float> **bag)
{
    if (blockIdx.x == 0 && threadIdx.x < 2)
        (*bag)->set_count(threadIdx.x);
}

__global__ void pointer_overwritten(Bag<float> **bag)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        (*bag)->add(2.0f); //~ not-verified
        *bag = 0;
    }
}

__global__ void two_pointers(Bag<float> **first, Bag<float> **second)
{
    if (threadIdx.x == 0) {
        (*first)->add(1.0f);
        (*second)->add(2.0f); //~ not-verified
    }
}

__global__ void heap_object(float *store, Bag<float> **bag)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *bag = new Tally<float>(store); //~ not-verified
}

__global__ void member_repointed(Bag<float> **bag, float *other)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        (*bag)->move_to(other);
    __syncthreads();
    if (blockIdx.x == 0 && threadIdx.x == 1)
        (*bag)->add(3.0f);
}
