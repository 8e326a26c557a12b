; `__global__` kernel definitions (plain and templated).
(function_definition
  "__global__"
  declarator: (_) @kernel.declarator) @kernel
