//! A built-in model of the system headers kernels use, for machines without a
//! CUDA toolkit: for each header, the names it declares (so a kernel using
//! them is not "unresolved") and the macros whose values matter to a kernel
//! (`INFINITY`, `INT_MAX`, ...), written as C so the front end reads them like
//! any other definition. Functions stay opaque calls to the front end (their
//! results are unknown values), which is sound.

/// What a system header brings into a translation unit.
pub(crate) struct SystemHeader {
    /// Source text prepended to the unit (macros only: no declarations the
    /// front end could mistake for the user's).
    pub prelude: &'static str,
    /// Names declared by the header.
    pub names: &'static [&'static str],
}

const CUDA_RUNTIME_PRELUDE: &str = "\
#define CUDART_INF_F __int_as_float(0x7f800000)
#define CUDART_NAN_F __int_as_float(0x7fffffff)
#define CUDART_PI_F 3.141592654f
#define CUDART_PI 3.1415926535897931
#define cudaSuccess 0
";

const MATH_PRELUDE: &str = "\
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fffffff)
#define HUGE_VALF __int_as_float(0x7f800000)
#define M_PI 3.14159265358979323846
#define M_E 2.7182818284590452354
#define M_SQRT2 1.41421356237309504880
#define FLT_MAX 3.402823466e+38f
#define FLT_MIN 1.175494351e-38f
#define FLT_EPSILON 1.192092896e-07f
#define DBL_MAX 1.7976931348623158e+308
#define DBL_EPSILON 2.2204460492503131e-016
";

const LIMITS_PRELUDE: &str = "\
#define CHAR_BIT 8
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#define SHRT_MAX 32767
#define USHRT_MAX 65535
#define INT_MAX 2147483647
#define INT_MIN (-2147483647 - 1)
#define UINT_MAX 4294967295u
#define LLONG_MAX 9223372036854775807ll
#define INT8_MAX 127
#define INT16_MAX 32767
#define INT32_MAX 2147483647
#define INT32_MIN (-2147483647 - 1)
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295u
#define INT64_MAX 9223372036854775807ll
";

/// Names every device pass sees without an include (nvcc includes
/// `cuda_runtime.h` itself): built-in variables, types, intrinsics, atomics,
/// warp functions and the single-precision math library.
pub(crate) const IMPLICIT: &[&str] = &[
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "dim3",
    "size_t",
    "ptrdiff_t",
    "cudaStream_t",
    "cudaError_t",
    "cudaEvent_t",
    "nullptr",
    "NULL",
    "__syncthreads",
    "__syncthreads_count",
    "__syncthreads_and",
    "__syncthreads_or",
    "__syncwarp",
    "__threadfence",
    "__threadfence_block",
    "__threadfence_system",
    "__nanosleep",
    "printf",
    "assert",
    "__ldg",
    "__ldcg",
    "__ldca",
    "__ldcs",
    "__ldlu",
    "__ldcv",
    "__stcg",
    "__stcs",
    "__stwt",
    "__stwb",
    "atomicAdd",
    "atomicSub",
    "atomicExch",
    "atomicMin",
    "atomicMax",
    "atomicInc",
    "atomicDec",
    "atomicCAS",
    "atomicAnd",
    "atomicOr",
    "atomicXor",
    "atomicAdd_block",
    "atomicAdd_system",
    "__shfl_sync",
    "__shfl_up_sync",
    "__shfl_down_sync",
    "__shfl_xor_sync",
    "__shfl",
    "__shfl_up",
    "__shfl_down",
    "__shfl_xor",
    "__ballot_sync",
    "__any_sync",
    "__all_sync",
    "__activemask",
    "__match_any_sync",
    "__match_all_sync",
    "__reduce_add_sync",
    "__reduce_min_sync",
    "__reduce_max_sync",
    "__popc",
    "__popcll",
    "__clz",
    "__clzll",
    "__ffs",
    "__ffsll",
    "__brev",
    "__byte_perm",
    "__funnelshift_l",
    "__funnelshift_r",
    "__mul24",
    "__umul24",
    "__mulhi",
    "__umulhi",
    "__sad",
    "__usad",
    "__fdividef",
    "__expf",
    "__logf",
    "__sinf",
    "__cosf",
    "__powf",
    "__saturatef",
    "__fmaf_rn",
    "__fadd_rn",
    "__fmul_rn",
    "__float2int_rn",
    "__float2int_rz",
    "__int2float_rn",
    "__float_as_int",
    "__int_as_float",
    "__float_as_uint",
    "__uint_as_float",
    "__double_as_longlong",
    "__longlong_as_double",
    "clock",
    "clock64",
    "__prof_trigger",
    "min",
    "max",
    "umin",
    "umax",
    "abs",
    "labs",
    "llabs",
    "fabs",
    "fabsf",
    "sqrt",
    "sqrtf",
    "rsqrt",
    "rsqrtf",
    "cbrtf",
    "exp",
    "expf",
    "exp2f",
    "exp10f",
    "expm1f",
    "log",
    "logf",
    "log2f",
    "log10f",
    "log1pf",
    "pow",
    "powf",
    "sin",
    "sinf",
    "cos",
    "cosf",
    "tan",
    "tanf",
    "tanh",
    "tanhf",
    "sinhf",
    "coshf",
    "asinf",
    "acosf",
    "atanf",
    "atan2f",
    "sincosf",
    "sinpif",
    "cospif",
    "floor",
    "floorf",
    "ceil",
    "ceilf",
    "round",
    "roundf",
    "rintf",
    "truncf",
    "lroundf",
    "fmin",
    "fminf",
    "fmax",
    "fmaxf",
    "fma",
    "fmaf",
    "fmodf",
    "remainderf",
    "copysignf",
    "hypotf",
    "erff",
    "erfcf",
    "lgammaf",
    "tgammaf",
    "isnan",
    "isinf",
    "isfinite",
    "signbit",
    "frexpf",
    "ldexpf",
    "__isnanf",
    "__isinff",
    "static_cast",
    "reinterpret_cast",
    "const_cast",
    "__restrict__",
    "__forceinline__",
    "__noinline__",
    "__launch_bounds__",
    "__align__",
    "__builtin_assume",
    "__assume",
    "__requires",
    "__ensures",
    "__invariant",
    "__global_invariant",
    "float1",
    "float2",
    "float3",
    "float4",
    "double2",
    "double4",
    "int2",
    "int3",
    "int4",
    "uint2",
    "uint3",
    "uint4",
    "char2",
    "char4",
    "uchar2",
    "uchar4",
    "short2",
    "short4",
    "ushort2",
    "ushort4",
    "longlong2",
    "make_float2",
    "make_float3",
    "make_float4",
    "make_double2",
    "make_int2",
    "make_int3",
    "make_int4",
    "make_uint2",
    "make_uint3",
    "make_uint4",
    "make_char4",
    "make_uchar4",
    "make_short2",
    "make_ushort2",
    "make_longlong2",
    "cudaMalloc",
    "cudaFree",
    "cudaMemcpy",
    "cudaMemcpyAsync",
    "cudaMemset",
    "cudaDeviceSynchronize",
    "cudaGetLastError",
    "cudaMemcpyHostToDevice",
    "cudaMemcpyDeviceToHost",
    "cudaMemcpyDeviceToDevice",
    "cudaStreamSynchronize",
    "true",
    "false",
    "this",
];

/// The headers of the model, by the name written in `#include <...>`.
pub(crate) fn lookup(name: &str) -> Option<SystemHeader> {
    let none: &[&str] = &[];
    Some(match name {
        "cuda_runtime.h"
        | "cuda_runtime_api.h"
        | "cuda.h"
        | "device_launch_parameters.h"
        | "vector_types.h"
        | "vector_functions.h"
        | "device_functions.h"
        | "sm_20_atomic_functions.h"
        | "sm_60_atomic_functions.h"
        | "cuda_device_runtime_api.h" => SystemHeader {
            prelude: CUDA_RUNTIME_PRELUDE,
            names: &[
                "CUDART_INF_F",
                "CUDART_NAN_F",
                "CUDART_PI_F",
                "CUDART_PI",
                "cudaSuccess",
            ],
        },
        "cooperative_groups.h"
        | "cooperative_groups/reduce.h"
        | "cooperative_groups/scan.h"
        | "cooperative_groups/memcpy_async.h" => SystemHeader {
            prelude: "",
            names: &[
                "cooperative_groups",
                "thread_block",
                "thread_block_tile",
                "grid_group",
                "coalesced_group",
                "this_thread_block",
                "this_grid",
                "tiled_partition",
                "coalesced_threads",
                "this_thread",
                "sync",
                "reduce",
                "inclusive_scan",
                "exclusive_scan",
                "memcpy_async",
                "wait",
                "wait_prior",
                "plus",
                "less",
                "greater",
                "bit_and",
                "bit_or",
                "bit_xor",
            ],
        },
        // libcu++'s atomics: the front end lowers their members to CUDA's
        // atomics (`frontend::lower::libcu_atomics`).
        "cuda/atomic" | "cuda/std/atomic" => SystemHeader {
            prelude: "",
            names: &[
                "cuda",
                "std",
                "atomic",
                "atomic_ref",
                "thread_scope",
                "thread_scope_system",
                "thread_scope_device",
                "thread_scope_block",
                "thread_scope_thread",
                "memory_order",
                "memory_order_relaxed",
                "memory_order_consume",
                "memory_order_acquire",
                "memory_order_release",
                "memory_order_acq_rel",
                "memory_order_seq_cst",
                "atomic_thread_fence",
                "atomic_flag",
            ],
        },
        "cuda_fp16.h" | "cuda_fp16.hpp" => SystemHeader {
            prelude: "",
            names: &[
                "__half",
                "__half2",
                "half",
                "half2",
                "__float2half",
                "__float2half_rn",
                "__half2float",
                "__floats2half2_rn",
                "__half22float2",
                "__float22half2_rn",
                "__hadd",
                "__hsub",
                "__hmul",
                "__hdiv",
                "__hfma",
                "__hneg",
                "__hadd2",
                "__hmul2",
                "__hfma2",
                "__hmax",
                "__hmin",
                "__heq",
                "__hlt",
                "__hgt",
                "__low2half",
                "__high2half",
                "__halves2half2",
                "__half_as_ushort",
                "__ushort_as_half",
                "hexp",
                "hlog",
                "hsqrt",
                "hrsqrt",
                "__shfl_xor_sync",
            ],
        },
        "cuda_bf16.h" | "cuda_bf16.hpp" => SystemHeader {
            prelude: "",
            names: &[
                "__nv_bfloat16",
                "__nv_bfloat162",
                "nv_bfloat16",
                "nv_bfloat162",
                "__float2bfloat16",
                "__float2bfloat16_rn",
                "__bfloat162float",
                "__floats2bfloat162_rn",
                "__bfloat1622float2",
                "__hadd",
                "__hsub",
                "__hmul",
                "__hfma",
                "__hmax",
                "__hmin",
            ],
        },
        "curand_kernel.h" | "curand.h" => SystemHeader {
            prelude: "",
            names: &[
                "curandState",
                "curandState_t",
                "curandStateXORWOW",
                "curandStateXORWOW_t",
                "curandStatePhilox4_32_10_t",
                "curandStateMRG32k3a",
                "curand_init",
                "curand",
                "curand_uniform",
                "curand_uniform2_double",
                "curand_uniform4",
                "curand_normal",
                "curand_normal2",
                "curand_normal4",
                "curand_log_normal",
                "curand_poisson",
            ],
        },
        "cstdint" | "stdint.h" | "inttypes.h" | "cinttypes" => SystemHeader {
            prelude: LIMITS_PRELUDE,
            names: &[
                "int8_t",
                "int16_t",
                "int32_t",
                "int64_t",
                "uint8_t",
                "uint16_t",
                "uint32_t",
                "uint64_t",
                "intptr_t",
                "uintptr_t",
                "INT8_MAX",
                "INT16_MAX",
                "INT32_MAX",
                "INT32_MIN",
                "UINT8_MAX",
                "UINT16_MAX",
                "UINT32_MAX",
                "INT64_MAX",
            ],
        },
        "climits" | "limits.h" => SystemHeader {
            prelude: LIMITS_PRELUDE,
            names: &[
                "CHAR_BIT",
                "SCHAR_MAX",
                "UCHAR_MAX",
                "SHRT_MAX",
                "USHRT_MAX",
                "INT_MAX",
                "INT_MIN",
                "UINT_MAX",
                "LLONG_MAX",
            ],
        },
        "cmath" | "math.h" | "cfloat" | "float.h" | "math_constants.h" => SystemHeader {
            prelude: MATH_PRELUDE,
            names: &[
                "INFINITY",
                "NAN",
                "HUGE_VALF",
                "M_PI",
                "M_E",
                "M_SQRT2",
                "FLT_MAX",
                "FLT_MIN",
                "FLT_EPSILON",
                "DBL_MAX",
                "DBL_EPSILON",
                "std",
            ],
        },
        // Host-side and general C/C++ headers: nothing a kernel's meaning
        // depends on (host code is not analysed).
        "cassert" | "assert.h" | "cstdio" | "stdio.h" | "cstdlib" | "stdlib.h" | "cstring"
        | "string.h" | "cstddef" | "stddef.h" | "iostream" | "vector" | "string" | "memory"
        | "algorithm" | "numeric" | "utility" | "chrono" | "random" | "functional" | "array"
        | "map" | "unordered_map" | "set" | "tuple" | "type_traits" | "limits" | "iomanip"
        | "fstream" | "sstream" | "stdexcept" | "cstdarg" | "ctime" | "time.h" | "thread"
        | "mutex" | "atomic" | "initializer_list" | "cuda/std/cstdint" | "cuda/std/limits"
        | "deque" | "list" | "queue" | "stack" | "bitset" | "iterator" | "optional"
        | "variant" | "exception" | "new" | "cctype" | "cerrno" | "cstdbool"
        | "ostream" | "istream" | "condition_variable" | "future"
        // POSIX and the rest of libc: host-side (files, processes, strings,
        // time), nothing a kernel's meaning depends on.
        | "strings.h" | "unistd.h" | "ctype.h" | "errno.h" | "fcntl.h" | "signal.h"
        | "pthread.h" | "dirent.h" | "getopt.h" | "libgen.h" | "dlfcn.h" | "locale.h"
        | "wchar.h" | "stdbool.h" | "stdarg.h" | "setjmp.h" | "termios.h" | "malloc.h"
        | "memory.h" | "alloca.h" | "sched.h" | "semaphore.h" | "sys/types.h"
        | "sys/stat.h" | "sys/time.h" | "sys/times.h" | "sys/mman.h" | "sys/wait.h"
        | "sys/resource.h" | "sys/ioctl.h" | "sys/socket.h" | "sys/utsname.h"
        | "sys/sysinfo.h" | "netinet/in.h" | "arpa/inet.h" | "netdb.h" | "poll.h" => {
            SystemHeader {
                prelude: "",
                names: none,
            }
        }
        // Syncscope's own annotation header (`include/syncscope.h`): under
        // `__SYNCSCOPE__` it defines nothing, so a project that includes it
        // from a folder the analysis is not told about loses nothing.
        "syncscope.h" => SystemHeader {
            prelude: "",
            names: none,
        },
        _ => return None,
    })
}
