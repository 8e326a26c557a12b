; `#include "local.h"`: searched from the includer's folder, then the -I
; folders.
(preproc_include
  path: (string_literal) @include.local) @include

; `#include <system.h>`: the built-in system headers, then the -I folders.
(preproc_include
  path: (system_lib_string) @include.system) @include
