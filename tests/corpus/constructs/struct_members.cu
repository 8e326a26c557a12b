// Struct objects: members set by a constructor's initialiser list, by an
// aggregate initialiser, by a copy and through a reference; methods defined
// in the class or out of line, calling `this->`, nested objects, and a
// method that advances a member inside a loop (summarised like a local).
// Each `*_verified` kernel gives every thread its own cells; each `*_racy`
// one makes two threads meet on a cell, inside a method (marked on the
// method's line) or at a member access in the kernel.
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: ctor_verified verified
// expect-kernel: ctor_racy racy
// expect-kernel: out_of_line_racy racy
// expect-kernel: loop_verified verified
// expect-kernel: loop_racy racy
// expect-kernel: nested_racy racy
// expect-kernel: copy_and_reference_verified verified
// expect-kernel: copy_racy racy

struct Slot {
    float *p;
    int off;
    __device__ Slot(float *q, int o) : p(q), off(o) {}
    __device__ void put(float v) { this->p[off + threadIdx.x] = v; } //~ data-race
    __device__ float get() const { return p[off]; } //~ data-race
};

struct Out {
    float *p;
    __device__ void put(int i, float v);
};

__device__ void Out::put(int i, float v) {
    p[i] = v; //~ data-race
}

struct Walk {
    float *p;
    int i;
    int step;
    __device__ void next() {
        p[i] = (float)threadIdx.x; //~ data-race
        i += step;
    }
};

struct Acc { float *p; __device__ void put(int i, float v) { p[i] = v; } }; //~ data-race
struct Pair { Acc in; int n; };

__global__ void ctor_verified(float *a) {
    __shared__ float s[128];
    Slot c(s, 64);
    c.put(a[threadIdx.x]);
    a[threadIdx.x] = s[threadIdx.x + 64];
}

__global__ void ctor_racy(float *a) {
    __shared__ float s[128];
    Slot c(s, 1);
    c.put(a[threadIdx.x]);
    a[threadIdx.x] = c.get();
}

__global__ void out_of_line_racy(float *a) {
    __shared__ float s[64];
    Out o = {s};
    o.put(threadIdx.x / 2, (float)threadIdx.x);
}

__global__ void loop_verified(float *a) {
    __shared__ float s[1024];
    Walk w{s, (int)threadIdx.x, 64};
    for (int k = 0; k < 4; k++)
        w.next();
}

__global__ void loop_racy(float *a) {
    __shared__ float s[1024];
    Walk w{s, (int)threadIdx.x, 1};
    for (int k = 0; k < 4; k++)
        w.next();
}

__global__ void nested_racy(float *a) {
    __shared__ float s[64];
    Pair o{{s}, 3};
    o.in.put(o.n, 2.0f * threadIdx.x);
}

__global__ void copy_and_reference_verified(float *a) {
    __shared__ float s[64];
    Acc x{s};
    Acc y = x;
    Acc &r = y;
    r.put(threadIdx.x, 1.0f);
}

__global__ void copy_racy(float *a) {
    __shared__ float s[64];
    Acc x{s};
    auto z = x;
    z.put(threadIdx.x, 1.0f);
    z.p[0] = 3.0f * threadIdx.x; //~ data-race
}
