; Kernels: function definitions written with `__global__` (also `static
; __global__`, and inside a `template <...>` declaration, which wraps this
; same node). A declaration without a body is a prototype, not a kernel.
(function_definition
  "__global__") @kernel
