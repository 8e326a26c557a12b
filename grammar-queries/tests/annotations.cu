// Snippets for annotations.scm; each capture is marked on its line (see syntax/queries/tests.rs).
__global__ void __launch_bounds__(256) one(float *a) {} //~ @annotation.function "__global__ void __launch_bounds__(256) one(float *a) {}" @annotation.launch_bounds "__launch_bounds__(256)"
__global__ void __launch_bounds__(256, 2) two(float *a) {} //~ @annotation.function "__global__ void __launch_bounds__(256, 2) two(float *a) {}" @annotation.launch_bounds "__launch_bounds__(256, 2)"
// Not annotated.
__global__ void none(float *a) {}
__device__ int clamp(int x) {
    __requires(x >= 0); //~ @annotation.specification "__requires"
    __ensures(__return_val_int() >= 0); //~ @annotation.specification "__ensures"
    return x;
}
__global__ void specified(int *a, int n) {
    __global_requires(n > 0); //~ @annotation.specification "__global_requires"
    __assume(n < 1024); //~ @annotation.specification "__assume"
    __builtin_assume(n % 2 == 0); //~ @annotation.specification "__builtin_assume"
    assert(n != 3); //~ @annotation.specification "assert"
    for (int i = 0; __invariant(i <= n), i < n; i++) { //~ @annotation.specification "__invariant"
        __global_invariant(i >= 0); //~ @annotation.specification "__global_invariant"
        __function_wide_invariant(n > 0); //~ @annotation.specification "__function_wide_invariant"
    }
    __assert(n > 0); //~ @annotation.specification "__assert"
    __global_ensures(n > 0); //~ @annotation.specification "__global_ensures"
    // Not specifications: predicates used inside them, an ordinary call.
    __implies(n > 0, n > 1);
    clamp(n);
}
