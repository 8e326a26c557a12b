; Barrier calls, by the kind of barrier each name is. The front end reads the
; names of each kind from here (`#any-of?` lists): a new barrier function is
; a name added to its list. Lowering resolves the name first (a macro such
; as `#define block_sync __syncthreads` names the barrier too), and a group
; barrier is one only when its object is a cooperative group.

; Every thread of the block waits.
((call_expression
   function: (identifier) @barrier.block)
 (#any-of? @barrier.block "__syncthreads"))

; Every thread of the block waits, and the block's values are combined.
((call_expression
   function: (identifier) @barrier.block.counting)
 (#any-of? @barrier.block.counting "__syncthreads_count" "__syncthreads_and" "__syncthreads_or"))

; The lanes of a warp (those of its mask) wait.
((call_expression
   function: (identifier) @barrier.warp)
 (#any-of? @barrier.warp "__syncwarp"))

; A cooperative group's method: `block.sync()`, `tile.barrier_wait()`.
((call_expression
   function: (field_expression
     field: (field_identifier) @barrier.group.method))
 (#any-of? @barrier.group.method "sync" "barrier_wait"))

; A cooperative group passed to a function: `cg::sync(g)`, `synchronize(g)`.
((call_expression
   function: [
     (identifier) @barrier.group.function
     (qualified_identifier name: (identifier) @barrier.group.function)
   ])
 (#any-of? @barrier.group.function "sync" "synchronize"))
