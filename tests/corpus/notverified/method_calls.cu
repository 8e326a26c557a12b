// Calls the front end cannot model are named, never dropped: a method called
// through a pointer, on a struct with a base class or on an element of a
// shared array of structs; a destructor; an overloaded operator; calls
// through function pointers; a function
// whose body is not in the file receiving an object that holds a pointer,
// or the address of a pointer it may change.  Each kernel is otherwise
// race-free.  Since issue 19 `struct_parameter` (a struct kernel
// parameter's pointer member is a buffer of its own) and `function_pointer`
// (a function pointer whose one target is known is a call of it) verify,
// and `functor` (a call of an object with `operator()`, inlined) races on
// the two cells its threads write.  `builtins_verified`
// shows that math builtins, shuffles and functional casts stay modelled, and
// that `sincosf` writing two locals through their addresses is fine.
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: arrow not-verified
// expect-kernel: derived not-verified
// expect-kernel: destructor not-verified
// expect-kernel: operator_overload not-verified
// expect-kernel: functor racy
// expect-kernel: function_pointer verified
// expect-kernel: function_pointer_array not-verified
// expect-kernel: opaque_with_object not-verified
// expect-kernel: struct_parameter verified
// expect-kernel: shared_struct_method not-verified
// expect-kernel: opaque_out_pointer not-verified
// expect-kernel: builtins_verified verified

struct Acc { float *p; __device__ void put(int i, float v) { p[i] = v; } };
struct Base { float *p; };
struct Derived : Base { __device__ void put(int i) { p[i] = 0; } };
struct Dtor { float *p; __device__ ~Dtor() { p[threadIdx.x % 2] = 0; } };
struct Op { float *p; __device__ void operator+=(float v) { p[threadIdx.x % 2] = v; } };
struct Call { float *p; __device__ void operator()(int i) { p[i] = threadIdx.x; } }; //~ data-race
__device__ void opaque_fn(Acc a);
__device__ void opaque_ptr(float **q);
__device__ void w(float *q, int i) { q[i] = 0; }

__global__ void arrow(float *a) {
    __shared__ float s[64];
    Acc acc{s};
    Acc *pa = &acc;
    pa->put(threadIdx.x, 1.0f); //~ not-verified
}

__global__ void derived(float *a) {
    __shared__ float s[64];
    Derived d;
    d.p = s;
    d.put(threadIdx.x % 2); //~ not-verified
}

__global__ void destructor(float *a) {
    __shared__ float s[64];
    Dtor d{s}; //~ not-verified
}

__global__ void operator_overload(float *a) {
    __shared__ float s[64];
    Op o{s};
    o += 1.0f; //~ not-verified
}

__global__ void functor(float *a) {
    __shared__ float s[64];
    Call c{s};
    c(threadIdx.x % 2);
}

__global__ void function_pointer(float *a) {
    __shared__ float s[64];
    void (*f)(float *, int) = w;
    f(s, threadIdx.x);
}

__global__ void function_pointer_array(float *a) {
    __shared__ float s[64];
    void (*fs[2])(float *, int) = {w, w};
    fs[0](s, threadIdx.x); //~ not-verified
}

__global__ void opaque_with_object(float *a) {
    __shared__ float s[64];
    Acc acc{s};
    opaque_fn(acc); //~ not-verified
}

__global__ void struct_parameter(Acc acc) {
    acc.put(threadIdx.x, 1.0f);
}

__global__ void shared_struct_method(float *a) {
    __shared__ Acc s[64];
    s[threadIdx.x].put(0, 1.0f); //~ not-verified
}

__global__ void opaque_out_pointer(float *a) {
    float *q = a;
    opaque_ptr(&q);
    q[threadIdx.x % 2] = 0; //~ not-verified
}

__global__ void builtins_verified(float *a) {
    float x = a[threadIdx.x], sn, cs;
    sincosf(x, &sn, &cs);
    a[threadIdx.x] = sqrtf(sn) + __shfl_sync(0xffffffff, cs, 0) + min(x, 1.0f) + float(threadIdx.x);
}
