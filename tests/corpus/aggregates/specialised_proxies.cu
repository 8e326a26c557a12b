// syncscope-args: --block-dim 64 --grid-dim 1
// The SDK's other dynamic shared memory idiom: a struct template with an
// explicit specialisation per element type, whose method returns the
// `extern __shared__` buffer (`Proxy<T> p; T *s = p.get();`). A local of
// `Proxy<int>` is an object of the specialisation `Proxy<int>`, its method
// inlined; in a template kernel, `Proxy<T>` is the specialisation of the
// type bound to `T` (here by the file's one explicit instantiation; by host
// templates in tests/projects/launch/proxies.cu). A `T` nothing binds
// leaves `p` a value the model does not track.
// expect-kernel: reversed_concrete verified
// expect-kernel: reversed_concrete_racy racy
// expect-kernel: twist verified
// expect-kernel: twist_racy racy
// expect-kernel: twist_unbound not-verified

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

// Instantiated twice: which `T` a run has is not one type.
template <class T> __global__ void twist_unbound(T* io) {
    Proxy<T> p;
    T* s = p.get(); //~ not-verified
    s[threadIdx.x] = io[threadIdx.x]; //~ not-verified
    __syncthreads();
    io[threadIdx.x] = s[threadIdx.x ^ 1]; //~ not-verified
}

template __global__ void twist<int>(int* io);
template __global__ void twist_racy<float>(float* io);
template __global__ void twist_unbound<int>(int* io);
template __global__ void twist_unbound<float>(float* io);
