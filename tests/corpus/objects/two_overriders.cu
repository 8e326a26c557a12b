// A virtual call through a base-class pointer to an object made elsewhere,
// when the file defines two classes that override the method: the object
// may be of either, and the model does not make that choice, so the call
// is not-verified, naming both. A non-virtual method of the base class is
// the base class's whatever the dynamic type: a plain read of its member
// against an atomic update is racy.
// syncscope-args: --block-dim 32 --grid-dim 8
// expect-kernel: either_overrider not-verified
// expect-kernel: base_method_racy racy

class Sink {
public:
    __device__ virtual void put(int v) = 0;
    __device__ int seen() { return hits; } //~ data-race
    __device__ void hit() { atomicAdd(&hits, 1); } //~ data-race
    int hits;
};

class Front : public Sink {
public:
    __device__ virtual void put(int v) { first[atomicAdd(&n, 1)] = v; }
    int n;
    int *first;
};

class Back : public Sink {
public:
    __device__ virtual void put(int v) { last = v; }
    int last;
};

__global__ void either_overrider(Sink **sink)
{
    if (threadIdx.x == 0)
        (*sink)->put(blockIdx.x); //~ not-verified
}

__global__ void base_method_racy(Sink **sink, int *out)
{
    if (threadIdx.x == 0)
        (*sink)->hit();
    if (threadIdx.x == 1)
        out[blockIdx.x] = (*sink)->seen();
}
