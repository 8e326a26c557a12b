; Barrier calls: __syncthreads and friends, __syncwarp, and group `.sync()`.
((call_expression
   function: (identifier) @barrier.name) @barrier
 (#match? @barrier.name "^__sync(threads(_count|_and|_or)?|warp)$"))
((call_expression
   function: (field_expression field: (field_identifier) @barrier.name)) @barrier
 (#eq? @barrier.name "sync"))
