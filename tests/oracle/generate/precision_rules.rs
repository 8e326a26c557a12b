//! Families for the precision rules that turn a possible race into
//! `verified` through a fact the engine derives: driver-API launches, the
//! occupancy block size, host helper summaries, loop exit values, local
//! arrays of pointers and pitched rows, and the linear abstraction of
//! divergence queries. Each variant's truth is computed here from its
//! parameters (by enumeration where the rule is arithmetic), never by
//! running the engine or the simulator.

use super::*;

/// Two one-dimensional blocks: the launch `fill_rows` races under when a
/// row width is below the block.
fn rows_shape(threads: &[u32]) -> LaunchShape {
    LaunchShape {
        grid: [
            Dim::OneOf(vec![2]),
            Dim::OneOf(vec![1]),
            Dim::OneOf(vec![1]),
        ],
        block: [
            Dim::OneOf(threads.to_vec()),
            Dim::OneOf(vec![1]),
            Dim::OneOf(vec![1]),
        ],
    }
}

// Block `b` writes `out[b * w + t]`: the two blocks' rows overlap exactly
// when `w < blockDim.x`. The kernel is loaded by name through the driver
// API (`cuModuleGetFunction`) and launched by `cuLaunchKernel` with the
// width passed through the `args` array: literal sizes, a `dim3`'s fields,
// a name from a table, or a handle that escapes (any launch, any width).
// Racy iff some launch passes a width below its block, or the launch is
// not one the host code shows.
pub(super) fn driver_launches(rng: &mut Rng) -> Case {
    let mut k = Src::default();
    k.line("#include <cuda_runtime.h>");
    k.line("");
    k.line("extern \"C\" __global__ void fill_rows(int* out, int w)");
    k.line("{");
    k.line("    out[blockIdx.x * w + threadIdx.x] = (int)threadIdx.x;");
    k.line("}");
    let mut defines = String::new();
    let mut host = String::new();
    let mut forms = Vec::new();
    let mut widths = Vec::new();
    let mut unknown = false;
    // One block size for every launch: the simulator draws a launch's
    // block and its width independently, so every combination of the
    // host's values must be a launch that can happen.
    let threads = *rng.pick(&[32u32, 64]);
    for call in 0..rng.range(1, 2) {
        let w = *rng.pick(&[16i64, 32, 64, 128]);
        let load = if rng.coin() {
            "    cuModuleGetFunction(&f, module, \"fill_rows\");\n".to_string()
        } else {
            "    const char* names[] = {\"other_kernel\", \"fill_rows\"};\n    cuModuleGetFunction(&f, module, names[which]);\n".to_string()
        };
        let (launch, form) = match rng.below(4) {
            0 => (
                format!("    cuLaunchKernel(f, 2, 1, 1, {threads}, 1, 1, 0, 0, args, 0);\n"),
                format!("literal sizes {threads} threads, w = {w}"),
            ),
            1 => (
                format!("    dim3 block({threads});\n    dim3 grid(2);\n    cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, 0, 0, args, 0);\n"),
                format!("dim3 fields {threads} threads, w = {w}"),
            ),
            2 => (
{
                    defines.push_str(&format!("#define ROW_THREADS{call} {threads}\n"));
                    format!("    cuLaunchKernel(f, 2, 1, 1, ROW_THREADS{call}, 1, 1, 0, 0, args, 0);\n")
                },
                format!("macro {threads} threads, w = {w}"),
            ),
            _ => {
                unknown = true;
                (
                    "    g_kept = f;\n".to_string(),
                    "the handle escapes to a global".to_string(),
                )
            }
        };
        host.push_str(&format!(
            "void run{call}(CUmodule module, CUdeviceptr out, int which)\n{{\n    CUfunction f;\n{load}    int width = {w};\n    void* args[] = {{&out, &width}};\n{launch}}}\n\n"
        ));
        if !form.starts_with("the handle") {
            widths.push(w);
        }
        forms.push(form);
    }
    let racy = unknown || widths.iter().any(|&w| w < i64::from(threads));
    // A handle the host lets escape may be launched any way, with any width.
    let (launches, host_values) = if unknown {
        (vec![LaunchShape::one_d()], Vec::new())
    } else {
        (
            vec![rows_shape(&[threads])],
            vec![("w".to_string(), widths)],
        )
    };
    Case {
        seed: 0,
        family: Family::DriverLaunches,
        variant: forms.join(" | "),
        files: vec![
            ("kern.cu".into(), k.text),
            (
                "host.cpp".into(),
                format!("#include <cuda.h>\n\n{defines}\nCUfunction g_kept;\n\n{host}"),
            ),
        ],
        kernel: "fill_rows".into(),
        params: vec![param("out", ParamKind::Pointer), param("w", ParamKind::Int)],
        launches,
        truth: Truth {
            racy,
            ..Truth::default()
        },
        value_probe: None,
        host_values,
        sorted_inputs: false,
        host_launches: Vec::new(),
    }
}

// Block `b` writes `out[b * T + t]` for a tile of `T` cells: two blocks'
// cells overlap exactly when the block has more than `T` threads. A
// `static` helper in `host.cpp` tries the names of a table in order from
// a first block size, loading each (`cuModuleGetFunction(&f, m,
// names[i])`) and halving the size when the occupancy query says it does
// not fit (or halving before its check: a size paired with the next
// name), then stores the handle and the size through pointers; its
// caller launches the handle with that size. The kernel sits at one
// place of the table, or the index is a run-time value (every name with
// every size). Racy iff some size the helper may hand back with the
// kernel is above its tile.
pub(super) fn driver_pairing(rng: &mut Rng) -> Case {
    let tile = *rng.pick(&[64u32, 128, 256]);
    let mut k = Src::default();
    k.line("#include <cuda_runtime.h>");
    k.line("");
    k.line("extern \"C\" __global__ void tile_rows(int* out)");
    k.line("{");
    k.line(&format!(
        "    out[blockIdx.x * {tile} + threadIdx.x] = (int)threadIdx.x;"
    ));
    k.line("}");
    let count = rng.range(2, 3) as usize;
    let at = rng.below(count as u64) as usize;
    let first = *rng.pick(&[128u32, 256, 512]);
    let halve_first = rng.below(3) == 0;
    let unknown_index = rng.below(4) == 0;
    let names: Vec<String> = (0..count)
        .map(|i| {
            if i == at {
                "\"tile_rows\"".to_string()
            } else {
                format!("\"other_{i}\"")
            }
        })
        .collect();
    // The sizes each path hands back with the name at each index: the
    // size when the check passes at that index, and, for the last index,
    // the size after the loop runs out.
    let size_at = |i: usize| {
        if halve_first {
            first >> (i + 1)
        } else {
            first >> i
        }
    };
    let mut sizes: Vec<u32> = Vec::new();
    let mut body = String::new();
    body.push_str(&format!(
        "    const char* names[] = {{{}}};\n    CUfunction f = 0;\n    int threads = {first};\n",
        names.join(", ")
    ));
    let form = if unknown_index {
        body.push_str(&format!(
            "    if (pick > 0)\n        threads = {};\n    cuModuleGetFunction(&f, module, names[pick % {count}]);\n",
            first / 2
        ));
        sizes.extend([first, first / 2]);
        format!("index not known, {first} or {} threads", first / 2)
    } else {
        let check = "        if (threads <= most)\n            break;\n";
        let load = "        cuModuleGetFunction(&f, module, names[i]);\n        cuOccupancyMaxPotentialBlockSize(&grid, &most, f, 0, 0, 0);\n";
        let step = if halve_first {
            format!("        threads /= 2;\n{load}{check}")
        } else {
            format!("{load}{check}        threads /= 2;\n")
        };
        body.push_str(&format!(
            "    for (int i = 0; i < {count}; ++i) {{\n        int grid = 0;\n        int most = 0;\n{step}    }}\n"
        ));
        sizes.push(size_at(at));
        if at + 1 == count && !halve_first {
            sizes.push(first >> count);
        }
        format!(
            "tile_rows at {at} of {count}, from {first} threads{}",
            if halve_first {
                ", halved before the check"
            } else {
                ""
            }
        )
    };
    body.push_str("    *kernel = f;\n    *block = threads;\n");
    let host = format!(
        "#include <cuda.h>\n\nstatic void pick_tile(CUmodule module, int pick, CUfunction* kernel, int* block)\n{{\n{body}}}\n\nvoid run(CUmodule module, CUdeviceptr out, int pick)\n{{\n    CUfunction f = 0;\n    int threads = 0;\n    pick_tile(module, pick, &f, &threads);\n    void* args[] = {{&out}};\n    cuLaunchKernel(f, 2, 1, 1, threads, 1, 1, 0, 0, args, 0);\n}}\n"
    );
    sizes.retain(|s| *s > 0);
    sizes.sort_unstable();
    sizes.dedup();
    let racy = sizes.iter().any(|s| *s > tile);
    Case {
        seed: 0,
        family: Family::DriverPairing,
        variant: format!("tile {tile}, {form}"),
        files: vec![("kern.cu".into(), k.text), ("host.cpp".into(), host)],
        kernel: "tile_rows".into(),
        params: vec![param("out", ParamKind::Pointer)],
        launches: vec![rows_shape(&sizes)],
        truth: Truth {
            racy,
            ..Truth::default()
        },
        value_probe: None,
        host_values: Vec::new(),
        sorted_inputs: false,
        host_launches: Vec::new(),
    }
}

// Threads below `blockDim.x % 32` (those of a last, partial warp) write one
// shared cell: two of them race, which needs a block size whose remainder
// by 32 is at least 2. The host sizes the launch from
// `cudaOccupancyMaxPotentialBlockSize`, whose answer is a whole number of
// warps when its `blockSizeLimit` is absent, 0 or a multiple of 32 (the
// runtime header tries sizes from the limit down in whole warps, the limit
// itself first). The launch uses that answer, half of it, a size of its
// own, or the answer overwritten afterwards on some path.
pub(super) fn occupancy_block_size(rng: &mut Rng) -> Case {
    let mut k = Src::default();
    k.line("#include \"kern.cuh\"");
    k.line("");
    k.line("__global__ void tail_warp(int* out)");
    k.line("{");
    k.line("    __shared__ int last[1];");
    k.line("    unsigned t = threadIdx.x;");
    k.line("    if (t < blockDim.x % 32)");
    k.line("        last[0] = (int)t;");
    k.line("    __syncthreads();");
    k.line("    if (t == 0)");
    k.line("        out[blockIdx.x] = last[0];");
    k.line("}");
    let limit = *rng.pick(&[None, Some(0u32), Some(64), Some(100), Some(256)]);
    let limit_arg = limit.map_or(String::new(), |l| format!(", {l}"));
    let mut body = format!(
        "    int min_grid = 0;\n    int block = 0;\n    cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, tail_warp, 0{limit_arg});\n    int n = argc > 1 ? atoi(argv[1]) : 1000;\n"
    );
    // The sizes the occupancy call can answer (the device allows 1024
    // threads): multiples of 32 up to the limit, and the limit itself when
    // it is not one.
    let top = match limit {
        None | Some(0) => 1024,
        Some(l) => l.min(1024),
    };
    let mut answers: Vec<u32> = (1..=top / 32).map(|w| w * 32).collect();
    if top % 32 != 0 {
        answers.push(top);
    }
    // The answer itself half the time: the engine claims only there.
    let (size, sizes, form): (&str, Option<Vec<u32>>, &str) = match rng.below(6) {
        0..=2 => ("block", Some(answers.clone()), "the answer"),
        3 => (
            "block / 2",
            Some(answers.iter().map(|b| b / 2).collect()),
            "half the answer",
        ),
        4 => {
            body.push_str("    int threads = argc > 2 ? atoi(argv[2]) : 128;\n");
            ("threads", None, "a command-line size beside the answer")
        }
        _ => {
            body.push_str("    if (argc > 2)\n        block = atoi(argv[2]);\n");
            ("block", None, "the answer, overwritten on a path")
        }
    };
    body.push_str(&format!(
        "    tail_warp<<<(n + {size} - 1) / ({size}), {size}>>>(d);\n"
    ));
    let racy = match &sizes {
        Some(s) => s.iter().any(|b| b % 32 >= 2),
        None => true,
    };
    // The simulator runs the small ones of the sizes (it runs each thread).
    let block = match sizes {
        Some(s) => {
            let small: Vec<u32> = s.iter().copied().filter(|&b| b <= 128 && b > 0).collect();
            let mut small = if small.is_empty() { s } else { small };
            small.sort_unstable();
            small.dedup();
            Dim::OneOf(small)
        }
        None => Dim::Any,
    };
    let one = || Dim::OneOf(vec![1]);
    let shape = LaunchShape {
        grid: [Dim::Any, one(), one()],
        block: [block, one(), one()],
    };
    host_case(
        rng,
        Family::OccupancyBlockSize,
        ("tail_warp", k),
        vec![param("out", ParamKind::Pointer)],
        "",
        &body,
        shape,
        Vec::new(),
        racy,
        format!(
            "limit {}, launched with {form}",
            limit.map_or("absent".to_string(), |l| l.to_string())
        ),
    )
}

/// The helpers whose result the host compares with 1, as C and as the
/// value they return (`None`: the call does not return).
struct OddHelper {
    code: &'static str,
    eval: fn(u64) -> Option<u64>,
    what: &'static str,
}

/// The odd part of `v` (0 for 0), halving while even.
fn odd_part(v: u64) -> Option<u64> {
    if v == 0 {
        return Some(0);
    }
    Some(v >> v.trailing_zeros())
}

/// The odd part, by a loop that never ends for 0.
fn odd_part_no_zero(v: u64) -> Option<u64> {
    (v != 0).then(|| v >> v.trailing_zeros())
}

/// Two bits at a time while even: not the odd part (6 gives 1); a value
/// reaching 0 never returns.
fn by_four(v: u64) -> Option<u64> {
    if v == 0 {
        return Some(0);
    }
    let mut v = v;
    while v & 1 == 0 {
        if v == 0 {
            return None;
        }
        v >>= 2;
    }
    Some(v)
}

const ODD_HELPERS: [OddHelper; 3] = [
    OddHelper {
        code: "static unsigned odd_part(unsigned v)\n{\n    if (v == 0)\n        return 0;\n    while ((v & 1) == 0)\n        v >>= 1;\n    return v;\n}\n\n",
        eval: odd_part,
        what: "odd part",
    },
    OddHelper {
        code: "static unsigned odd_part(unsigned v)\n{\n    while (v % 2 == 0)\n        v = v / 2;\n    return v;\n}\n\n",
        eval: odd_part_no_zero,
        what: "odd part (no answer for 0)",
    },
    OddHelper {
        code: "static unsigned odd_part(unsigned v)\n{\n    if (!v)\n        return 0;\n    while ((v & 1) == 0)\n        v >>= 2;\n    return v;\n}\n\n",
        eval: by_four,
        what: "two bits at a time",
    },
];

/// The largest length the host lets through (and the enumeration's end).
const MAX_LEN: u64 = 1 << 14;

// The bitonic merge step (`pos = 2t - (t & (stride - 1))`, touching `pos`
// and `pos + stride`) is race-free exactly at the strides where no two
// threads' pairs meet: powers of two and 0. The host checks a command-line
// length with a helper that returns the odd part (`!= 1` leaves only
// powers of two) or a helper that is not one, stops or only prints, and
// passes `n / 512`, `n >> 9`, `n / 3` or `n / 512 + 1`. The truth
// enumerates every length the host lets through.
pub(super) fn host_helper_summaries(rng: &mut Rng) -> Case {
    let threads = *rng.pick(&[16u32, 32]);
    let mut k = Src::default();
    k.line("#include \"kern.cuh\"");
    k.line("");
    k.line("__global__ void merge_step(unsigned* a, unsigned stride)");
    k.line("{");
    k.line("    unsigned t = threadIdx.x;");
    k.line("    unsigned pos = 2 * t - (t & (stride - 1));");
    k.line("    unsigned x = a[pos];");
    k.line("    unsigned y = a[pos + stride];");
    k.line("    a[pos] = x < y ? x : y;");
    k.line("    a[pos + stride] = x < y ? y : x;");
    k.line("}");
    let helper = rng.pick(&ODD_HELPERS);
    let (check, stops) = match rng.below(4) {
        0 => (
            "    if (odd_part(n) != 1) {\n        fprintf(stderr, \"n must be a power of two\\n\");\n        exit(EXIT_FAILURE);\n    }\n",
            true,
        ),
        1 => (
            "    unsigned rest = odd_part(n);\n    if (rest != 1)\n        return;\n",
            true,
        ),
        2 => ("    if (odd_part(n) != 1)\n        exit(1);\n", true),
        _ => (
            "    if (odd_part(n) != 1)\n        printf(\"n is not a power of two\\n\");\n",
            false,
        ),
    };
    let (arg, value): (&str, fn(u64) -> u64) = *rng.pick(&[
        ("n / 512", (|n| n / 512) as fn(u64) -> u64),
        ("n >> 9", |n| n >> 9),
        ("n / 3", |n| n / 3),
        ("n / 512 + 1", |n| n / 512 + 1),
    ]);
    let prelude = format!(
        "{}static void run(unsigned* a, unsigned n)\n{{\n{check}    if (n > {MAX_LEN})\n        return;\n    merge_step<<<1, {threads}>>>(a, {arg});\n}}\n\n",
        helper.code
    );
    let body = "    if (argc > 1)\n        run((unsigned*)d, (unsigned)atoi(argv[1]));\n";
    // Every length that reaches the launch: the helper returned (a call
    // that never returns stops the program) and, when the check stops,
    // returned 1.
    let mut strides: Vec<u64> = (0..=MAX_LEN)
        .filter(|&n| match (helper.eval)(n) {
            None => false,
            Some(r) => !stops || r == 1,
        })
        .map(value)
        .collect();
    strides.sort_unstable();
    strides.dedup();
    let colliding: Vec<u64> = strides
        .iter()
        .copied()
        .filter(|&s| merge_step_collides(threads, s as u32))
        .collect();
    let racy = !colliding.is_empty();
    // The simulator draws from a few of them: the smallest colliding ones
    // and the smallest others (a large stride only indexes past the buffer).
    let mut sample: Vec<i64> = colliding.iter().take(6).map(|&s| s as i64).collect();
    sample.extend(
        strides
            .iter()
            .filter(|s| !colliding.contains(s))
            .take(6)
            .map(|&s| s as i64),
    );
    host_case(
        rng,
        Family::HostHelperSummaries,
        ("merge_step", k),
        vec![
            param("a", ParamKind::Pointer),
            param("stride", ParamKind::Unsigned),
        ],
        &prelude,
        body,
        LaunchShape::exact([1, 1, 1], [threads, 1, 1]),
        vec![("stride".to_string(), sample)],
        racy,
        format!(
            "{threads} threads, helper: {}, check {}, launched with {arg}",
            helper.what,
            if stops { "stops" } else { "only prints" }
        ),
    )
}

// Each thread writes its own cell `s[t]`, then the cell `p` its loop left
// it at: `p = t + trips * step`. Two threads' writes (of different values)
// meet exactly when `0 < trips * step < blockDim.x` for some launch (blocks
// of up to 64 threads). The loop counts up or down with `<`, `<=`, `>` or
// `>=` over constants, or up to a run-time count `n & 7`, or is left by a
// `break` before its condition fails; the truth is the loop's trip counts,
// computed here.
pub(super) fn loop_exit_values(rng: &mut Rng) -> Case {
    let step = *rng.pick(&[1i64, 8, 16, 32, 64]);
    let lo = i64::from(rng.range(0, 3));
    let hi = i64::from(rng.range(0, 6));
    let mut breaks_at = None;
    let (head, trips): (String, Vec<i64>) = match rng.below(7) {
        0 => (
            format!("for (int i = {lo}; i < {hi}; ++i)"),
            vec![(hi - lo).max(0)],
        ),
        1 => (
            format!("for (int i = {lo}; i <= {hi}; i++)"),
            vec![(hi - lo + 1).max(0)],
        ),
        2 => (
            format!("for (int i = {hi}; i > {lo}; --i)"),
            vec![(hi - lo).max(0)],
        ),
        3 => (
            format!("for (int i = {hi}; i >= {lo}; i--)"),
            vec![(hi - lo + 1).max(0)],
        ),
        4 => (
            "for (int i = 0; i < (n & 7); ++i)".to_string(),
            (0..8).collect(),
        ),
        5 => (
            format!("for (int i = {hi} - (n & 3); i > {lo}; i -= 1)"),
            (0..4).map(|m| (hi - m - lo).max(0)).collect(),
        ),
        _ => {
            // Left early by a `break` at `i == at` (every thread alike):
            // the exit value is not the closed form at the condition's
            // trip count.
            let at = i64::from(rng.range(0, 5));
            breaks_at = Some(at);
            let trips = if (lo..hi).contains(&at) {
                at - lo
            } else {
                (hi - lo).max(0)
            };
            (format!("for (int i = {lo}; i < {hi}; ++i)"), vec![trips])
        }
    };
    let mut s = Src::default();
    s.line("__global__ void after_loop(int* out, int n)");
    s.line("{");
    s.line("    __requires(blockDim.x <= 64 && blockDim.y == 1 && blockDim.z == 1);");
    s.line("    __shared__ int s[512];");
    s.line("    unsigned t = threadIdx.x;");
    s.line("    s[t] = 1;");
    s.line("    unsigned p = t;");
    match breaks_at {
        None => {
            s.line(&format!("    {head}"));
            s.line(&format!("        p += {step};"));
        }
        Some(at) => {
            s.line(&format!("    {head} {{"));
            s.line(&format!("        if (i == {at})"));
            s.line("            break;");
            s.line(&format!("        p += {step};"));
            s.line("    }");
        }
    }
    s.line("    s[p] = 2;");
    s.line("    __syncthreads();");
    s.line("    out[blockIdx.x * blockDim.x + t] = s[t];");
    s.line("}");
    let racy = trips.iter().any(|&k| (1..64).contains(&(k * step)));
    let mut shape = LaunchShape::any();
    shape.block[1] = Dim::OneOf(vec![1]);
    shape.block[2] = Dim::OneOf(vec![1]);
    let mut case = single(
        "after_loop",
        s,
        vec![param("out", ParamKind::Pointer), param("n", ParamKind::Int)],
        vec![shape],
        Truth {
            racy,
            ..Truth::default()
        },
        format!(
            "{head}{} p += {step}: trips {trips:?}",
            breaks_at.map_or(String::new(), |at| format!(" break at {at}"))
        ),
    );
    case.family = Family::LoopExitValues;
    case
}

// Two views the engine keeps as exact places. Local arrays of pointers:
// `v[i]` of `{lo, hi}` (an initialiser, element stores, or pointers to one
// cell each); thread t writes through one element at `t` and reads through
// another at `t + off`: a race iff both name one array and `0 < off <
// blockDim.x` (blocks of up to 32 threads), whichever element a run-time
// index picks. Pitched rows: `(T*)((char*)v + blockIdx.x * pitch) + t`
// for an element type named through a typedef, under `pitch >= least`:
// rows of two blocks overlap iff some allowed pitch is below a row of
// the block, `least < 32 * sizeof(T)`.
pub(super) fn pointer_views(rng: &mut Rng) -> Case {
    if rng.coin() {
        pointer_arrays(rng)
    } else {
        pitched_rows(rng)
    }
}

/// The block sizes the views' `__requires(blockDim.x <= 32)` allows that
/// the simulator tries: small ones and a whole warp.
const SMALL_BLOCKS: [u32; 6] = [1, 2, 5, 16, 31, 32];

fn pointer_arrays(rng: &mut Rng) -> Case {
    let off = *rng.pick(&[0u32, 1, 5, 31, 32]);
    let mut s = Src::default();
    s.line("__global__ void two_planes(float* out, int c)");
    s.line("{");
    s.line("    __requires(blockDim.x <= 32 && blockDim.y == 1 && blockDim.z == 1);");
    s.line("    __shared__ float lo[64];");
    s.line("    __shared__ float hi[64];");
    s.line("    unsigned t = threadIdx.x;");
    let (racy, form) = match rng.below(3) {
        0 | 1 => {
            let (w, r) = (rng.below(2), rng.below(2));
            if rng.coin() {
                s.line("    float* v[2] = {lo, hi};");
            } else {
                s.line("    float* v[2];");
                s.line("    v[0] = lo;");
                s.line("    v[1] = hi;");
            }
            // A run-time element (`c & 1`) may pick either array.
            let dynamic = rng.below(3) == 0;
            let written = if dynamic {
                "c & 1".to_string()
            } else {
                w.to_string()
            };
            s.line(&format!("    v[{written}][t] = (float)t;"));
            s.line(&format!(
                "    out[blockIdx.x * 32 + t] = v[{r}][t + {off}];"
            ));
            (
                (dynamic || w == r) && (1..32).contains(&off),
                format!("v[{written}][t] written, v[{r}][t + {off}] read"),
            )
        }
        _ => {
            let same = rng.coin();
            let other = if same { "lo" } else { "hi" };
            s.line("    float* v[2];");
            s.line("    v[0] = &lo[t];");
            s.line(&format!("    v[1] = &{other}[t + {off}];"));
            s.line("    *v[0] = (float)t;");
            s.line("    out[blockIdx.x * 32 + t] = *v[1];");
            (
                same && (1..32).contains(&off),
                format!("*v[0] = lo[t] written, *v[1] = {other}[t + {off}] read"),
            )
        }
    };
    s.line("}");
    let mut shape = LaunchShape::any();
    shape.block = [
        Dim::OneOf(SMALL_BLOCKS.to_vec()),
        Dim::OneOf(vec![1]),
        Dim::OneOf(vec![1]),
    ];
    let mut case = single(
        "two_planes",
        s,
        vec![param("out", ParamKind::Pointer), param("c", ParamKind::Int)],
        vec![shape],
        Truth {
            racy,
            ..Truth::default()
        },
        form,
    );
    case.family = Family::PointerViews;
    case
}

fn pitched_rows(rng: &mut Rng) -> Case {
    let (elem, size, write) = *rng.pick(&[
        ("float", 4u32, "    *row = (cell_t)threadIdx.x;"),
        ("int", 4, "    *row = (cell_t)threadIdx.x;"),
        ("double", 8, "    *row = (cell_t)threadIdx.x;"),
        ("float2", 8, "    row->x = (float)threadIdx.x;"),
    ]);
    let least = *rng.pick(&[16u32, 64, 100, 128, 256]);
    let mut s = Src::default();
    s.line(&format!("typedef {elem} cell_t;"));
    s.line("");
    s.line("__global__ void pitched_rows(cell_t* v, unsigned pitch)");
    s.line("{");
    s.line("    __requires(blockDim.x <= 32 && blockDim.y == 1 && blockDim.z == 1);");
    s.line("    __requires(gridDim.y == 1 && gridDim.z == 1);");
    s.line(&format!("    __requires(pitch >= {least});"));
    s.line("    cell_t* row = (cell_t*)((char*)v + blockIdx.x * pitch) + threadIdx.x;");
    s.line(write);
    s.line("}");
    let racy = least < 32 * size;
    // Pitches the precondition allows, aligned to the element (the
    // simulator's buffers hold whole elements): the least ones, where rows
    // overlap if any do, and a row's worth.
    let aligned = least.div_ceil(size) * size;
    let pitches: Vec<i64> = [aligned, aligned + size, 32 * size, 32 * size + size]
        .iter()
        .map(|&p| i64::from(p))
        .collect();
    let mut case = single(
        "pitched_rows",
        s,
        vec![
            param("v", ParamKind::Pointer),
            param("pitch", ParamKind::Unsigned),
        ],
        vec![LaunchShape {
            grid: [Dim::Any, Dim::OneOf(vec![1]), Dim::OneOf(vec![1])],
            block: [
                Dim::OneOf(SMALL_BLOCKS.to_vec()),
                Dim::OneOf(vec![1]),
                Dim::OneOf(vec![1]),
            ],
        }],
        Truth {
            racy,
            ..Truth::default()
        },
        format!("{elem} rows, pitch >= {least}"),
    );
    case.family = Family::PointerViews;
    case.host_values = vec![("pitch".to_string(), pitches)];
    case
}

/// Whether a warp's lanes disagree on the grid-stride bound `i < n` at
/// some trip, `i = b * bd + t + off + k * gd * bd`, for a block of `bd`
/// threads (one-dimensional) and a grid of `gd` blocks.
fn stride_loop_diverges(bd: u64, gd: u64, n: u64, off: u64) -> bool {
    let stride = gd * bd;
    (0..gd).any(|b| {
        (0..bd.div_ceil(32)).any(|warp| {
            let lanes = (warp * 32)..(bd.min(warp * 32 + 32));
            // Trips until the warp's first lane leaves.
            let first = b * bd + warp * 32 + off;
            (0..=n / stride + 1).any(|k| {
                let base = first + k * stride;
                let inside = lanes.clone().filter(|l| base + (l - warp * 32) < n).count();
                inside != 0 && inside != lanes.clone().count()
            })
        })
    })
}

// A grid-stride loop with `__syncwarp()` in its body: a warp's lanes reach
// it together iff they agree on `i < n` at every trip. With blocks of
// whole warps (`blockDim.x % 32 == 0`), a bound and a start offset that are
// multiples of 32, every warp's indices are 32 aligned consecutive values:
// uniform. The proof needs the linear abstraction of the products
// `k * gridDim.x * blockDim.x`. The truth enumerates blocks of 1 to 128
// threads and grids of 1 to 4 blocks (a divergence found there is one of
// the launch set; none found is the alignment argument above).
pub(super) fn warp_uniform_strides(rng: &mut Rng) -> Case {
    let whole_warps = rng.below(3) != 0;
    let off = *rng.pick(&[0u64, 0, 32, 1]);
    let (bound, ns): (String, Vec<u64>) = match rng.below(3) {
        0 | 1 => {
            // Small bounds: the simulator runs every trip of every thread.
            let n = *rng.pick(&[256u64, 224, 96, 250, 100]);
            (format!("n == {n}"), vec![n])
        }
        _ => (
            "n % 32 == 0 && n >= 0 && n <= 256".to_string(),
            vec![0, 32, 96, 160, 224, 256],
        ),
    };
    let mut s = Src::default();
    s.line("__global__ void stride_count(const int* in, int* count, int n)");
    s.line("{");
    s.line(&format!("    {ONE_D}"));
    if whole_warps {
        s.line("    __requires(blockDim.x % 32 == 0);");
    }
    s.line(&format!("    __requires({bound});"));
    s.line(&format!(
        "    for (int i = blockIdx.x * blockDim.x + threadIdx.x + {off}; i < n; i += gridDim.x * blockDim.x) {{"
    ));
    s.line("        if (in[i] & 1)");
    s.line("            atomicAdd(count, 1);");
    let sync = s.line("        __syncwarp();");
    s.line("    }");
    s.line("}");
    let blocks: Vec<u64> = (1..=128).filter(|b| !whole_warps || b % 32 == 0).collect();
    let racy = ns.iter().any(|&n| {
        blocks
            .iter()
            .any(|&bd| (1..=4).any(|gd| stride_loop_diverges(bd, gd, n, off)))
    });
    let mut shape = LaunchShape::one_d();
    if whole_warps {
        shape.block[0] = Dim::OneOf(vec![32, 64]);
    }
    let mut case = single(
        "stride_count",
        s,
        vec![
            param("in", ParamKind::Pointer),
            param("count", ParamKind::Pointer),
            param("n", ParamKind::Int),
        ],
        vec![shape],
        Truth {
            racy,
            // Without the warp barrier only atomics remain: never needed.
            barriers: vec![(sync, false)],
            ..Truth::default()
        },
        format!("whole warps {whole_warps}, offset {off}, {bound}"),
    );
    case.family = Family::WarpUniformStrides;
    case.host_values = vec![("n".to_string(), ns.iter().map(|&n| n as i64).collect())];
    case
}

/// The block-size helpers a host rounds a count up with, as C and as the
/// value they return for a count.
struct BlockHelper {
    code: &'static str,
    eval: fn(u32) -> u32,
    what: &'static str,
}

const BLOCK_HELPERS: [BlockHelper; 4] = [
    BlockHelper {
        code: "static unsigned block_for(unsigned n)\n{\n    unsigned p = 1;\n    while (p < n)\n        p <<= 1;\n    return p;\n}\n\n",
        eval: |n| n.max(1).next_power_of_two(),
        what: "doubling loop",
    },
    BlockHelper {
        code: "static unsigned int block_for(unsigned int n)\n{\n    --n;\n    n |= n >> 1;\n    n |= n >> 2;\n    n |= n >> 4;\n    n |= n >> 8;\n    n |= n >> 16;\n    return n + 1;\n}\n\n",
        eval: |n| n.max(1).next_power_of_two(),
        what: "bit smear",
    },
    BlockHelper {
        code: "static unsigned block_for(unsigned n)\n{\n    return 1u << (n % 7);\n}\n\n",
        eval: |n| 1 << (n % 7),
        what: "1u << (n % 7)",
    },
    BlockHelper {
        code: "static unsigned block_for(unsigned n)\n{\n    unsigned p = 8;\n    while (p < n)\n        p += 8;\n    return p;\n}\n\n",
        eval: |n| n.div_ceil(8).max(1) * 8,
        what: "whole groups of 8",
    },
];

/// Whether two threads of a `threads`-thread block meet in `pair_fold`:
/// thread `t < h` (`h = threads / 2`) reads `pos` and `pos + h` and
/// writes `pos`, `pos = 2t - (t & (h - 1))`.
fn pair_fold_collides(threads: u32) -> bool {
    let h = threads / 2;
    let mut writer = std::collections::HashMap::new();
    for t in 0..h {
        let pos = 2 * t - (t & h.wrapping_sub(1));
        writer.insert(pos, t);
    }
    (0..h).any(|t| {
        let pos = 2 * t - (t & h.wrapping_sub(1));
        [pos, pos + h]
            .iter()
            .any(|c| writer.get(c).is_some_and(|&w| w != t))
    })
}

// A one-step pairwise fold over `(pos, pos + h)`, `h = blockDim.x / 2`:
// each thread its own pair exactly when the block is a power of two (for
// the blocks used here). The host rounds a command-line count (1..64) up
// with a helper and launches one block of that size: a helper that always
// returns a power of two makes it one at every launch; one rounding to
// whole groups of 8 does not. The truth enumerates every count the host
// lets through.
pub(super) fn power_helpers(rng: &mut Rng) -> Case {
    let mut k = Src::default();
    k.line("#include \"kern.cuh\"");
    k.line("");
    k.line("__global__ void pair_fold(float* a)");
    k.line("{");
    k.line("    unsigned t = threadIdx.x;");
    k.line("    unsigned h = blockDim.x / 2;");
    k.line("    if (t < h) {");
    k.line("        unsigned pos = 2 * t - (t & (h - 1));");
    k.line("        float x = a[pos];");
    k.line("        float y = a[pos + h];");
    k.line("        a[pos] = x + y;");
    k.line("    }");
    k.line("}");
    let helper = rng.pick(&BLOCK_HELPERS);
    let (launch, form) = match rng.below(3) {
        0 => (
            "    unsigned threads = block_for(n);\n    pair_fold<<<1, threads>>>(a);\n",
            "a local",
        ),
        1 => ("    pair_fold<<<1, block_for(n)>>>(a);\n", "the call"),
        _ => (
            "    dim3 block(block_for(n));\n    pair_fold<<<1, block>>>(a);\n",
            "a dim3",
        ),
    };
    let prelude = format!(
        "{}static void run(float* a, unsigned n)\n{{\n    if (n < 1 || n > 64)\n        return;\n{launch}}}\n\n",
        helper.code
    );
    let body = "    if (argc > 1)\n        run((float*)d, (unsigned)atoi(argv[1]));\n";
    let mut blocks: Vec<u32> = (1..=64).map(helper.eval).collect();
    blocks.sort_unstable();
    blocks.dedup();
    let racy = blocks.iter().any(|&b| pair_fold_collides(b));
    host_case(
        rng,
        Family::PowerHelpers,
        ("pair_fold", k),
        vec![param("a", ParamKind::Pointer)],
        &prelude,
        body,
        LaunchShape {
            grid: [
                Dim::OneOf(vec![1]),
                Dim::OneOf(vec![1]),
                Dim::OneOf(vec![1]),
            ],
            block: [
                Dim::OneOf(blocks.clone()),
                Dim::OneOf(vec![1]),
                Dim::OneOf(vec![1]),
            ],
        },
        vec![],
        racy,
        format!(
            "helper: {}, block as {form}: blocks {blocks:?}",
            helper.what
        ),
    )
}

// Surplus threads clamped to the last element: thread `g` works on
// element `e = min(g, last)`, so every thread past `last` writes what the
// thread of `last` writes. The values are equal on the machine when the
// two threads compute one expression from equal inputs: the clamped
// element, reads of arrays no thread writes (equal index, equal value),
// floating-point arithmetic and conversions of those (deterministic), a
// loop's slot at one iteration. They differ when the value mixes in the
// thread's own index, reads one element past the clamp for the surplus
// threads only, reads memory the kernel writes (another thread may write
// the cell between the reads: a race of its own), or sums in an order the
// thread picks (rounding). Racy iff the values may differ: every launch
// set holds launches with surplus threads (`last` as small as 0).
pub(super) fn clamped_tails(rng: &mut Rng) -> Case {
    // (prelude lines, written cell, value, equal on the machine, in a loop)
    // Each thread's own `__shared__` slots (one per block thread and slot
    // number, `k * blockDim.x + threadIdx.x`), written before a barrier and
    // read back at a slot an input chooses.
    const OWN_SLOTS: &[&str] = &[
        "__shared__ float s[2048];",
        "s[threadIdx.x] = in[e] * 0.5f;",
        "s[blockDim.x + threadIdx.x] = in[e] + w[e & 7];",
        "__syncthreads();",
    ];
    const SLOT_MIXES_THREAD: &[&str] = &[
        "__shared__ float s[2048];",
        "s[threadIdx.x] = in[e] * 0.5f;",
        "s[blockDim.x + threadIdx.x] = in[e] + (float)threadIdx.x;",
        "__syncthreads();",
    ];
    const VARIANTS: [(&[&str], &str, &str, bool, bool); 11] = [
        (&[], "e", "in[e] * w[e & 7]", true, false),
        (
            &["unsigned code = idx[e] & 15;"],
            "e",
            "(float)code * w[code & 7] - in[e]",
            true,
            false,
        ),
        (&[], "e", "in[e] + (float)threadIdx.x", false, false),
        (
            &["unsigned from = g > last ? e + 1 : e;"],
            "e",
            "in[from] * 2.0f",
            false,
            false,
        ),
        (
            &[],
            "e",
            "(threadIdx.x & 1) ? (in[e] + w[0]) + w[1] : in[e] + (w[0] + w[1])",
            false,
            false,
        ),
        (&[], "e", "scratch[e] * 2.0f", false, false),
        (&[], "e * 4 + k", "in[e * 4 + k] * w[k] + 0.5f", true, true),
        (
            &["unsigned n = idx[e] & 3;"],
            "e * 4 + k",
            "w[(idx[e] & 3) + k] * 0.25f",
            true,
            true,
        ),
        (
            OWN_SLOTS,
            "e",
            "s[(idx[e] & 1) * blockDim.x + threadIdx.x] * 2.0f",
            true,
            false,
        ),
        (
            OWN_SLOTS,
            "e",
            "s[(idx[e] & 1) * blockDim.x + (threadIdx.x + 1) % blockDim.x] * 2.0f",
            false,
            false,
        ),
        (
            SLOT_MIXES_THREAD,
            "e",
            "s[(idx[e] & 1) * blockDim.x + threadIdx.x] * 2.0f",
            false,
            false,
        ),
    ];
    let (prelude, cell, value, equal, looped) = *rng.pick(&VARIANTS);
    let writes_scratch = value.contains("scratch");
    let if_form = rng.coin();
    let bound = if prelude.iter().any(|l| l.contains("unsigned n")) {
        "n"
    } else {
        "4"
    };
    let signature = "float* out, const float* in, const float* w, const unsigned* idx, float* scratch, unsigned last";
    let head = |s: &mut Src| {
        s.line("    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;");
        if if_form {
            s.line("    unsigned e = g;");
            s.line("    if (e > last)");
            s.line("        e = last;");
        } else {
            s.line("    unsigned e = min(g, last);");
        }
        for l in prelude {
            s.line(&format!("    {l}"));
        }
    };
    let mut s = Src::default();
    s.line(&format!("__global__ void clamped_tail({signature})"));
    s.line("{");
    s.line(&format!("    {ONE_D}"));
    head(&mut s);
    let write = if looped {
        s.line(&format!("    for (unsigned k = 0; k < {bound}; ++k)"));
        s.line(&format!("        out[{cell}] = {value};"))
    } else {
        s.line(&format!("    out[{cell}] = {value};"))
    };
    if writes_scratch {
        // Every thread stores its own element after reading: the thread of
        // `last` may store before a surplus thread reads.
        s.line("    scratch[g] = in[g];");
    }
    s.line("}");
    let mut params = vec![
        param("out", ParamKind::Pointer),
        param("in", ParamKind::Pointer),
        param("w", ParamKind::Pointer),
        param("idx", ParamKind::Pointer),
        param("scratch", ParamKind::Pointer),
        param("last", ParamKind::Unsigned),
    ];
    // The probe: each thread of a block computes its value and cell; the
    // first thread compares every two threads of one cell (NaN equals NaN:
    // one "not a number" or another, the write is the same). Not for a
    // loop (one value per iteration) nor for memory the kernel writes
    // (the probe does not write it).
    let probe = (!looped && !writes_scratch).then(|| {
        let mut p = Src::default();
        p.line(&format!(
            "__global__ void clamped_tail_probe({signature}, int* mismatch)"
        ));
        p.line("{");
        p.line("    __requires(blockDim.x <= 64 && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1);");
        p.line("    __shared__ float vals[64];");
        p.line("    __shared__ unsigned cells[64];");
        head(&mut p);
        p.line(&format!("    vals[threadIdx.x] = {value};"));
        p.line(&format!("    cells[threadIdx.x] = {cell};"));
        p.line("    __syncthreads();");
        p.line("    if (threadIdx.x == 0) {");
        p.line("        for (unsigned j = 1; j < blockDim.x; ++j) {");
        p.line("            for (unsigned i = 0; i < j; ++i) {");
        p.line("                bool both_nan = vals[j] != vals[j] && vals[i] != vals[i];");
        p.line("                if (cells[i] == cells[j] && vals[i] != vals[j] && !both_nan) mismatch[1 << 20] = 1;");
        p.line("            }");
        p.line("        }");
        p.line("    }");
        p.line("}");
        ("clamped_tail_probe".to_string(), p.text)
    });
    let variant = format!(
        "{} clamp, out[{cell}] = {value}{}",
        if if_form { "if" } else { "min" },
        if prelude.is_empty() {
            String::new()
        } else {
            format!(" after `{}`", prelude.join(" "))
        }
    );
    params.truncate(6);
    Case {
        seed: 0,
        family: Family::ClampedTails,
        variant,
        files: vec![("kernel.cu".into(), s.text)],
        kernel: "clamped_tail".into(),
        params,
        launches: vec![LaunchShape::one_d()],
        truth: Truth {
            racy: !equal,
            same_value_writes: vec![(write, equal)],
            ..Truth::default()
        },
        value_probe: probe,
        // Small elements counts, so that most launches have surplus
        // threads and the arrays' cells lie within the simulator's buffers.
        host_values: vec![("last".to_string(), vec![0, 1, 3, 17, 40])],
        sorted_inputs: false,
        host_launches: Vec::new(),
    }
}
