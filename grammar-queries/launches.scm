; `k<<<grid, block, shared, stream>>>(args)`: a launch site. The callee may
; be a name, `k<16>`, `ns::k`, or a pointer or table element the driver
; follows to the kernels it holds.
(call_expression
  function: (_) @launch.callee
  (kernel_call_syntax) @launch.config) @launch

; `cudaLaunchKernel((void *)k, grid, block, args, shared, stream)` (also
; qualified, `::cudaLaunchKernel`): the runtime launches the kernel of its
; first argument with the grid and block of its second and third.
((call_expression
   function: (_) @runtime.function) @runtime
 (#match? @runtime.function "(^|::)cudaLaunch(Cooperative)?Kernel$"))
