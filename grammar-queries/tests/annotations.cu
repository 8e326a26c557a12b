// Snippets for annotations.scm; each capture is marked on its line (see syntax/queries/tests.rs).
__global__ void __launch_bounds__(256) one(float *a) {} //~ @annotation.function "__global__ void __launch_bounds__(256) one(float *a) {}" @annotation.launch_bounds "__launch_bounds__(256)"
__global__ void __launch_bounds__(256, 2) two(float *a) {} //~ @annotation.function "__global__ void __launch_bounds__(256, 2) two(float *a) {}" @annotation.launch_bounds "__launch_bounds__(256, 2)"
// Not annotated.
__global__ void none(float *a) {}
