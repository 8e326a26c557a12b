// A method called on a local struct object is inlined with the object's
// members bound (`p` is the shared array the object was initialised with).
// `struct_method_racy` is the reproducer of a soundness bug: the call used
// to be dropped and the kernel reported verified, although every even thread
// writes s[0] and every odd one s[1] inside `put`, and s[0] is read after
// without a barrier.  `struct_method_fixed` writes each thread's own cell
// and reads a neighbour's after a barrier (verified).
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: struct_method_racy racy
// expect-kernel: struct_method_fixed verified

struct Acc { float *p; __device__ void put(int i, float v) { p[i] = v; } }; //~ data-race

__global__ void struct_method_racy(float *a) {
    __shared__ float s[64];
    Acc acc{s};
    acc.put(threadIdx.x % 2, a[threadIdx.x]);
    a[threadIdx.x] = s[0]; //~ data-race
}

__global__ void struct_method_fixed(float *a) {
    __shared__ float s[64];
    Acc acc{s};
    acc.put(threadIdx.x, a[threadIdx.x]);
    __syncthreads();
    a[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
