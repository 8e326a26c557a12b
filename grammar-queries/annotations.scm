; `__launch_bounds__(maxThreadsPerBlock[, minBlocks[, maxBlocksPerCluster]])`
; on a kernel: the kernel assumes at most that many threads per block.
(function_definition
  (launch_bounds) @annotation.launch_bounds) @annotation.function

; The specification language, written as calls in a kernel or device
; function: assumptions (`__requires(c)`, `__assume(c)`, `assert(c)`) and
; claims (`__assert(c)`, loop invariants, postconditions). The front end reads
; these names from here: a call of one is a specification, whose meaning the
; lowering gives by name (a name it does not know is reported as a
; specification not used, never assumed).
((call_expression
   function: (identifier) @annotation.specification)
 (#any-of? @annotation.specification
   "__requires" "__global_requires" "__assume" "__builtin_assume" "assert"
   "__assert" "__invariant" "__global_invariant" "__function_wide_invariant"
   "__ensures" "__global_ensures"))
