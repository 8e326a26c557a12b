/*
 * syncscope.h: Syncscope's annotations in a form every compiler accepts.
 *
 * Syncscope reads GPUVerify's specification language (`__requires(c)`,
 * `__assert(c)`, loop `__invariant(c)`...) written in kernel code. nvcc,
 * clang and g++ do not know these names: include this header and a real
 * build compiles them to nothing, while Syncscope (which defines
 * `__SYNCSCOPE__` in the pass it reads) sees every annotation.
 *
 *     #include "syncscope.h"
 *
 *     __global__ void scale(float *x)
 *     {
 *         __requires(blockDim.x == 256);
 *         ...
 *     }
 *
 * A file that cannot include it can guard one annotation instead:
 *
 *     #ifdef __SYNCSCOPE__
 *         __requires(blockDim.x == 256);
 *     #endif
 *
 * Both forms are described in docs/diagnostics.md ("Annotations that
 * compile"). `__builtin_assume(c)`, `__assume(c)` and `assert(c)` are the
 * compilers' own and are left alone.
 */
#ifndef SYNCSCOPE_H
#define SYNCSCOPE_H

#ifndef __SYNCSCOPE__

/* glibc's <assert.h> declares a function named `__assert`: declared before
 * the macro below, a later #include <assert.h> or <cassert> (whose
 * declarations are guarded) no longer sees its declaration expanded into
 * `((void)0)`, which does not compile. */
#if defined(__has_include)
#if __has_include(<assert.h>)
#include <assert.h>
#endif
#endif

/* Claims: statements (or, for a loop invariant, the left operand of a comma
 * in the loop's condition), so each becomes an expression that does nothing
 * and never evaluates its argument. Variadic: a condition with a comma at
 * its top level (a template argument list) stays one argument. */
#define __requires(...) ((void)0)
#define __global_requires(...) ((void)0)
#define __ensures(...) ((void)0)
#define __global_ensures(...) ((void)0)
#define __assert(...) ((void)0)
#define __invariant(...) ((void)0)
#define __global_invariant(...) ((void)0)
#define __function_wide_invariant(...) ((void)0)

/* The predicates (`__implies`, `__other_int`, `__write_implies`...) are
 * meaningful only inside a claim, which a real build removes whole: they
 * are not defined, so one written outside a claim is a compile error in a
 * real build rather than a silent guess at its value. */

#endif /* __SYNCSCOPE__ */

#endif /* SYNCSCOPE_H */
