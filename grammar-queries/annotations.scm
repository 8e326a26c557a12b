; `__launch_bounds__(maxThreadsPerBlock[, minBlocks[, maxBlocksPerCluster]])`
; on a kernel: the kernel assumes at most that many threads per block.
(function_definition
  (launch_bounds) @annotation.launch_bounds) @annotation.function
