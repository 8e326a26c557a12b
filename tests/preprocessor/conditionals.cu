// Conditionals as a compiler decides them; the test runs this file with
// -DWIDE=2 and -DUSE_DOUBLE on the command line, and the device pass's
// macros (__CUDACC__, __CUDA_ARCH__=800, __cplusplus).
#define LEVEL 3
#define FLAG
#define ZERO 0
#define EXPR (LEVEL * 2 + 1)

#if defined(FLAG) && !defined(MISSING)
int flag_and_not_missing;
#endif
#if defined FLAG || defined(NOPE)
int defined_without_parens;
#endif
#if LEVEL > 2
int level_gt_2;
#elif LEVEL > 1
int level_gt_1;
#else
int level_low;
#endif
#if EXPR == 7 && (EXPR % 4) == 3 && (1 << LEVEL) == 8 && -1 < 0 && ~0 == -1
int arithmetic;
#endif
#if ZERO
int zero_taken;
#elif UNDEFINED_NAME
int undefined_is_zero;
#elif 0x10 == 16 && 010 == 8 && 'A' == 65 && 10u > 9
int literals;
#endif
#if LEVEL >= 3 ? 1 : 0
int ternary;
#endif
#if 0
#error "never read"
#if 1
int nested_in_dead;
#else
int nested_else_in_dead;
#endif
#elif 1
int elif_after_dead;
#endif
#ifdef WIDE
int wide_from_command_line = WIDE;
#  if WIDE > 1
int wider;
#  endif
#endif
#ifndef USE_DOUBLE
typedef float real;
#else
typedef double real;
#endif
#if defined(__CUDACC__)
#  if __CUDA_ARCH__ >= 700
#    define HAS_INDEPENDENT_THREADS 1
#  else
#    define HAS_INDEPENDENT_THREADS 0
#  endif
#endif
#if __cplusplus >= 201103L
int cplusplus_11;
#endif

__global__ void params_under_conditions(real *out,
#if HAS_INDEPENDENT_THREADS
                                        const real *in,
#else
                                        const float *in,
#endif
#ifdef WIDE
                                        int width,
#endif
                                        int n)
{
    int t = threadIdx.x;
    out[t] = in[t] +
#if LEVEL == 3
             1
#else
             2
#endif
             ;
    combine(out,
#if defined(USE_DOUBLE)
            in,
#endif
            n);
#if __CUDA_ARCH__ >= 800
    __syncwarp();
#elif __CUDA_ARCH__ >= 700
    __syncthreads();
#endif
}

#ifdef __cplusplus
extern "C" {
#endif
__global__ void c_linkage(int *p) { p[threadIdx.x] = 0; }
#ifdef __cplusplus
}
#endif
