// The dynamic shared memory proxy of tests/corpus/aggregates/
// specialised_proxies.cu in template kernels launched `k<T>` from host
// function templates: `launch_twists<int>` and `launch_twists<float>` are
// every call of `launch_twists`, so `T` is `int` in one launch and `float`
// in the other, and `Proxy<T>` their specialisations. `launch_any_twist` is
// also called with a deduced type: its `T` is not bound (not-verified).
// expect-kernel: twist verified
// expect-kernel: twist_racy racy
// expect-kernel: twist_deduced not-verified

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

template <class T> __global__ void twist_deduced(T* io) {
    Proxy<T> p;
    T* s = p.get(); //~ not-verified
    s[threadIdx.x] = io[threadIdx.x]; //~ not-verified
    __syncthreads();
    io[threadIdx.x] = s[threadIdx.x ^ 1]; //~ not-verified
}

template <class T> void launch_twists(T* d) {
    twist<T><<<1, 64, 64 * sizeof(T)>>>(d);
    twist_racy<T><<<1, 64, 64 * sizeof(T)>>>(d);
}

template <class T> void launch_any_twist(T* d) {
    twist_deduced<T><<<1, 64, 64 * sizeof(T)>>>(d);
}

void launch_proxies(int* a, float* b) {
    launch_twists<int>(a);
    launch_twists<float>(b);
    launch_any_twist<int>(a);
    launch_any_twist(b);
}
