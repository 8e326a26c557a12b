// syncscope-args: --block-dim 64 --grid-dim 1
// C++ overloads of one device function name: a call inlines the definition
// whose parameter count is its argument count, never another overload's
// body (the two-argument form touches v[0] and v[stride], the one-argument
// form v[0] and v[1]).
// expect-kernel: strided_pairs verified
// expect-kernel: adjacent_pairs racy
// expect-kernel: even_pairs verified

__device__ void bump(int* v, int stride) { v[0] += 1; v[stride] += 1; } //~ data-race

__device__ void bump(int* v) {
    v[0] += 1;
    v[1] += 1;
}

// Threads t and t + 64: distinct cells for every thread.
__global__ void strided_pairs(int* out) {
    __shared__ int s[128];
    s[threadIdx.x] = 0;
    s[threadIdx.x + 64] = 0;
    __syncthreads(); //~ redundant-barrier
    bump(s + threadIdx.x, 64);
    __syncthreads(); //~ redundant-barrier
    out[threadIdx.x] = s[threadIdx.x];
}

// Stride 1: thread t's second cell is thread t + 1's first.
__global__ void adjacent_pairs(int* out) {
    __shared__ int s[128];
    s[threadIdx.x] = 0;
    s[threadIdx.x + 64] = 0;
    __syncthreads();
    bump(s + threadIdx.x, 1);
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}

// The one-argument form on cells 2t and 2t + 1.
__global__ void even_pairs(int* out) {
    __shared__ int s[128];
    s[2 * threadIdx.x] = 0;
    s[2 * threadIdx.x + 1] = 0;
    __syncthreads(); //~ redundant-barrier
    bump(s + 2 * threadIdx.x);
    __syncthreads(); //~ redundant-barrier
    out[threadIdx.x] = s[2 * threadIdx.x];
}
