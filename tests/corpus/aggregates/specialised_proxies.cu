// syncscope-args: --block-dim 64 --grid-dim 1
// The SDK's other dynamic shared memory idiom: a struct template with an
// explicit specialisation per element type, whose method returns the
// `extern __shared__` buffer (`Proxy<T> p; T *s = p.get();`). A local of
// `Proxy<int>` is an object of the specialisation `Proxy<int>`, its method
// inlined; in a template kernel, `Proxy<T>` is the specialisation of the
// type the launch gives `T`, also through a host template
// (`template <class T> void run(..) { twist<T><<<..>>>(..); }` called as
// `run<int>` and `run<float>`: one launch per type). A `T` no launch binds
// stays a value the model does not track.
// expect-kernel: reversed_concrete verified
// expect-kernel: reversed_concrete_racy racy
// expect-kernel: twist verified
// expect-kernel: twist_racy racy
// expect-kernel: twist_unlaunched not-verified

template <typename T> struct Proxy {
    // Not meant to be instantiated: `missing` has no definition anywhere.
    __device__ T* get() {
        extern __device__ void missing(void);
        missing();
        return 0;
    }
};

template <> struct Proxy<int> {
    __device__ int* get() {
        extern __shared__ int proxy_ints[];
        return proxy_ints;
    }
};

template <> struct Proxy<float> {
    __device__ float* get() {
        extern __shared__ float proxy_floats[];
        return proxy_floats;
    }
};

__global__ void reversed_concrete(int* io) {
    Proxy<int> p;
    int* s = p.get();
    s[threadIdx.x] = io[threadIdx.x];
    __syncthreads();
    io[threadIdx.x] = s[63 - threadIdx.x];
}

// No barrier between the store and the mirrored load.
__global__ void reversed_concrete_racy(int* io) {
    Proxy<int> p;
    int* s = p.get();
    s[threadIdx.x] = io[threadIdx.x]; //~ data-race
    io[threadIdx.x] = s[63 - threadIdx.x]; //~ data-race
}

template <class T> __global__ void twist(T* io) {
    Proxy<T> p;
    T* s = p.get();
    s[threadIdx.x] = io[threadIdx.x];
    __syncthreads();
    io[threadIdx.x] = s[threadIdx.x ^ 1];
}

template <class T> __global__ void twist_racy(T* io) {
    Proxy<T> p;
    T* s = p.get();
    s[threadIdx.x] = io[threadIdx.x]; //~ data-race
    io[threadIdx.x] = s[threadIdx.x ^ 1]; //~ data-race
}

// Launched from a host template that is also called with a deduced type
// (`run_any(d)`): which `T` it runs with is not written out.
template <class T> __global__ void twist_unlaunched(T* io) {
    Proxy<T> p;
    T* s = p.get(); //~ not-verified
    s[threadIdx.x] = io[threadIdx.x]; //~ not-verified
    __syncthreads();
    io[threadIdx.x] = s[threadIdx.x ^ 1]; //~ not-verified
}

template <class T> void run(T* d) {
    twist<T><<<1, 64, 64 * sizeof(T)>>>(d);
    twist_racy<T><<<1, 64, 64 * sizeof(T)>>>(d);
}

template <class T> void run_any(T* d) { twist_unlaunched<T><<<1, 64, 64 * sizeof(T)>>>(d); }

void host(int* a, float* b) {
    run<int>(a);
    run<float>(b);
    run_any<int>(a);
    run_any(b);
}
