// Snippets for includes.scm; each capture is marked on the line below it (see syntax/queries/tests.rs).
#include "sizes.h"
//~^ @include "#include "sizes.h"" @include.local ""sizes.h""
#  include <thrust/sort.h>
//~^ @include "#  include <thrust/sort.h>" @include.system "<thrust/sort.h>"
#if USE_LOCAL
#include "nested/local.h"
//~^ @include "#include "nested/local.h"" @include.local ""nested/local.h""
#endif
// Not includes: a computed include, other directives.
#include HEADER_NAME
#define include_everything 1
#pragma once
