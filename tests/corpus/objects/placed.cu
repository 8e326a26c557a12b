// An object of a class template constructed by a placement `new` in a
// `__shared__` buffer: the constructor runs on the object (its member
// initialisers and body store into the members' cells), the pointer thread
// 0 stores in a `__shared__` scalar is that object for every thread that
// reads it after the barrier, and its pointer member is the `__shared__`
// array the constructor stored. Even threads adding with an atomic slot
// between two barriers, thread 0 reading the count after them: verified.
// The count read by every thread while the even threads add, and a thread
// calling through the pointer before the barrier that publishes it (it
// reads the pointer, the object's dispatch pointer and its pointer member
// while thread 0 stores them): racy.
// The buffer also written as bytes, and objects of two classes constructed
// in one buffer: not-verified (the objects' layout in its bytes is not
// modelled).
// syncscope-args: --block-dim 128 --grid-dim 4
// expect-kernel: adders_then_reader verified
// expect-kernel: count_read_during_adds racy
// expect-kernel: called_before_published racy
// expect-kernel: buffer_used_as_bytes not-verified
// expect-kernel: two_classes_in_one_buffer not-verified

template <typename T> class Stack {
public:
    __device__ Stack(T *slots) : items(slots) { top = 0; } //~ data-race
    __device__ virtual void push(T v)
    {
        int at = atomicAdd(&top, 1); //~ data-race
        items[at] = v; //~ data-race
    }
    __device__ virtual int size() const { return top; } //~ data-race
    T *items;
    int top;
};

class Hits {
public:
    __device__ Hits() : hits(0) {}
    int hits;
};

__global__ void adders_then_reader(int *out)
{
    __shared__ __align__(8) unsigned char buffer[sizeof(Stack<int>)];
    __shared__ int slots[128];
    __shared__ Stack<int> *stack;
    if (threadIdx.x == 0)
        stack = new (buffer) Stack<int>(slots);
    __syncthreads();
    if (threadIdx.x % 2 == 0)
        stack->push(threadIdx.x);
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = stack->size();
}

__global__ void count_read_during_adds(int *out)
{
    __shared__ __align__(8) unsigned char buffer[sizeof(Stack<int>)];
    __shared__ int slots[128];
    __shared__ Stack<int> *stack;
    if (threadIdx.x == 0)
        stack = new (buffer) Stack<int>(slots);
    __syncthreads();
    if (threadIdx.x % 2 == 0)
        stack->push(threadIdx.x);
    out[blockIdx.x * blockDim.x + threadIdx.x] = stack->size();
}

__global__ void called_before_published(int *out)
{
    __shared__ __align__(8) unsigned char buffer[sizeof(Stack<int>)];
    __shared__ int slots[128];
    __shared__ Stack<int> *stack;
    if (threadIdx.x == 0)
        stack = new (buffer) Stack<int>(slots); //~ data-race
    if (threadIdx.x == 1)
        stack->push(threadIdx.x); //~ data-race
}

__global__ void buffer_used_as_bytes(int *out)
{
    __shared__ __align__(8) unsigned char buffer[sizeof(Stack<int>)];
    __shared__ int slots[128];
    __shared__ Stack<int> *stack;
    if (threadIdx.x == 0) {
        buffer[0] = 1;
        stack = new (buffer) Stack<int>(slots); //~ not-verified
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = stack->size();
}

__global__ void two_classes_in_one_buffer(int *out)
{
    __shared__ __align__(8) unsigned char buffer[sizeof(Stack<int>)];
    __shared__ int slots[128];
    __shared__ Stack<int> *stack;
    if (threadIdx.x == 0) {
        stack = new (buffer) Stack<int>(slots);
        new (buffer) Hits(); //~ not-verified
    }
}
