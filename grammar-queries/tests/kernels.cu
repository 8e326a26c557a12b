// Snippets for kernels.scm; each capture is marked on its line (see syntax/queries/tests.rs).
__global__ void plain(float *a) { a[0] = 0; } //~ @kernel "__global__ void plain(float *a) { a[0] = 0; }"
static __global__ void with_storage(float *a) {} //~ @kernel "static __global__ void with_storage(float *a) {}"
template <int N> __global__ void templated(float *a) {} //~ @kernel "__global__ void templated(float *a) {}"
__global__ void __launch_bounds__(128) bounded(float *a) {} //~ @kernel "__global__ void __launch_bounds__(128) bounded(float *a) {}"
namespace ns {
__global__ void inside(float *a) {} //~ @kernel "__global__ void inside(float *a) {}"
}
__global__ void multi_line(float *a)
//~^ @kernel "__global__ void multi_line(float *a)"
{
}

// Not kernels: a prototype, device and host functions.
__global__ void prototype(float *a);
__device__ void helper(float *a) {}
__host__ __device__ int both(int x) { return x; }
void host() {}
