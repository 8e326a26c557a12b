//! Families for the launch facts whose sizes and arguments go together:
//! a relation between the grid and an argument kept by a host `while`
//! loop (`loop-relations`), the value of a `switch` scrutinee under the
//! `case` labels a launch is reached from (`switch-cases`), and the host
//! sizes a command-line block or grid keeps (`option-sites`), and the
//! test of a host `while` loop at the launch in its body
//! (`host-while-tests`).
//!
//! The generator runs the host code itself: each family's host statements
//! are written twice, as C text and as a Rust step on concrete values, so
//! the launches the host makes (their sizes with the arguments passed) are
//! enumerated here, never read from the engine. The truth is whether one of
//! those launches races, by the kernel's closed-form condition; the
//! simulator runs the kernel under a sample of the same launches
//! ([`HostLaunch`]), sizes and arguments drawn together.

use super::*;

/// One dimension's launch: `x` alone, the others 1.
fn one_d(grid: Dim, block: Dim) -> LaunchShape {
    let one = || Dim::OneOf(vec![1]);
    LaunchShape {
        grid: [grid, one(), one()],
        block: [block, one(), one()],
    }
}

/// The state of the loop-relation host function: its parameter and the
/// variables the loop reads and writes.
#[derive(Clone, Copy, Debug, Default)]
struct Level {
    length: u32,
    half: u32,
    blocks: u32,
}

/// A host statement: its C text (`{b}` stands for the block constant) and
/// its effect on concrete values, with C's unsigned arithmetic.
type Step = (&'static str, fn(&mut Level, u32));

/// How `half` and `blocks` start, before the loop: the relation
/// `blocks * b <= half` holds on entry for the first, third and fifth.
const ENTRIES: [Step; 5] = [
    (
        "unsigned half = length;\n    unsigned blocks = length / {b};",
        |s, b| {
            s.half = s.length;
            s.blocks = s.length / b;
        },
    ),
    (
        "unsigned half = length / 2;\n    unsigned blocks = length / {b};",
        |s, b| {
            s.half = s.length / 2;
            s.blocks = s.length / b;
        },
    ),
    (
        "unsigned blocks = length / {b};\n    unsigned half = blocks * {b};",
        |s, b| {
            s.blocks = s.length / b;
            s.half = s.blocks.wrapping_mul(b);
        },
    ),
    (
        "unsigned half = length;\n    unsigned blocks = (length + {b} - 1) / {b};",
        |s, b| {
            s.half = s.length;
            s.blocks = s.length.wrapping_add(b - 1) / b;
        },
    ),
    (
        "unsigned half = length;\n    unsigned blocks = half / (2 * {b});",
        |s, b| {
            s.half = s.length;
            s.blocks = s.half / (2 * b);
        },
    ),
];

/// How the body updates them: the first, third, fourth, fifth and
/// eighth keep the relation.
const UPDATES: [Step; 9] = [
    ("half /= 2;\n        blocks /= 2;", |s, _| {
        s.half /= 2;
        s.blocks /= 2;
    }),
    ("half /= 4;\n        blocks /= 2;", |s, _| {
        s.half /= 4;
        s.blocks /= 2;
    }),
    ("half >>= 1;\n        blocks >>= 1;", |s, _| {
        s.half >>= 1;
        s.blocks >>= 1;
    }),
    ("blocks /= 2;\n        half = blocks * {b};", |s, b| {
        s.blocks /= 2;
        s.half = s.blocks.wrapping_mul(b);
    }),
    ("half -= {b};\n        blocks -= 1;", |s, b| {
        s.half = s.half.wrapping_sub(b);
        s.blocks = s.blocks.wrapping_sub(1);
    }),
    ("half -= 2 * {b};\n        blocks -= 1;", |s, b| {
        s.half = s.half.wrapping_sub(2 * b);
        s.blocks = s.blocks.wrapping_sub(1);
    }),
    (
        "blocks /= 2;\n        if (blocks > 2)\n            half /= 2;\n        else\n            half /= 8;",
        |s, _| {
            s.blocks /= 2;
            if s.blocks > 2 {
                s.half /= 2;
            } else {
                s.half /= 8;
            }
        },
    ),
    ("half = half / 2 + half % 2;\n        blocks /= 2;", |s, _| {
        s.half = s.half / 2 + s.half % 2;
        s.blocks /= 2;
    }),
    ("half /= 2;\n        blocks = (blocks + 1) / 2;", |s, _| {
        s.half /= 2;
        s.blocks = s.blocks.wrapping_add(1) / 2;
    }),
];

/// The launches one length makes: (grid, block, half) of each level.
type Levels = Box<dyn Fn(u32) -> Vec<(u32, u32, u32)>>;

/// Iterations of a host loop the generator follows (a loop that never
/// ends, `blocks = (blocks + 1) / 2` from 1, launches the same level
/// forever).
const LEVELS: usize = 64;

/// Whether `out[gid]` and `out[gid + half]` (32-bit unsigned) of two
/// threads below `threads` meet: the offset modulo 2^32 or its complement
/// is a nonzero distance between two of them.
fn offsets_meet(threads: u64, half: u32) -> bool {
    let d = u64::from(half);
    d != 0 && (d < threads || (1u64 << 32) - d < threads)
}

/// Every length `main` passes (`% 4096u`). Lengths past 2^31 would make
/// `gid + half` wrap around 2^32 even where the relation holds (`half =
/// 2^32 - 1` puts thread 1's second write on thread 0's first): the engine
/// computes indices in mathematical integers and does not see that race
/// (docs/reliability.md), which is not the rule under test here.
fn truth_lengths() -> impl Iterator<Item = u32> {
    0..4096u32
}

/// The lengths whose launches the simulator runs: small ones around
/// multiples of the block (launches of at most 512 threads are kept).
fn sampled_lengths(b: u32) -> Vec<u32> {
    vec![
        1,
        b - 1,
        b,
        b + 1,
        2 * b - 1,
        2 * b,
        2 * b + 1,
        3 * b,
        3 * b + 5,
        4 * b,
        4 * b + 1,
        5 * b,
        7 * b + 3,
        8 * b,
        8 * b + 1,
        16 * b - 1,
    ]
}

/// The launches of the loop-relation host function from entry `e`, as
/// `(blocks, b, half)`: one per level while `blocks` is nonzero (at most
/// `LEVELS`), with `before` and `after` the body's statements around the
/// launch.
fn loop_launches(
    length: u32,
    e: usize,
    b: u32,
    before: impl Fn(&mut Level),
    after: impl Fn(&mut Level),
) -> Vec<(u32, u32, u32)> {
    let mut s = Level {
        length,
        ..Level::default()
    };
    (ENTRIES[e].1)(&mut s, b);
    let mut out = Vec::new();
    for _ in 0..LEVELS {
        if s.blocks == 0 {
            break;
        }
        before(&mut s);
        out.push((s.blocks, b, s.half));
        after(&mut s);
    }
    out
}

// `level` writes `out[gid]` and `out[gid + half]`: race-free exactly when
// `half` (modulo 2^32) is 0 or at least the launch's thread count. The
// host `while` loop launches it once per level with `blocks` blocks of `b`
// threads and passes `half`; the entry and the body's update keep the
// relation `blocks * b <= half` or not (halved together, recomputed from
// the new length, stepped down by a block, or shrunk faster than the grid,
// rounded up, changed through a pointer, skipped by a `continue`). The
// length is a command-line value below 4096.
pub(super) fn loop_relations(rng: &mut Rng) -> Case {
    let b = *rng.pick(&[16u32, 32]);
    let test = *rng.pick(&["blocks > 0", "blocks != 0", "0 < blocks"]);
    // A `dim3` declared in the body is a variable the rule does not follow
    // (no fact: sound, less precise): drawn less often.
    let (grid_text, grid_decl) = match rng.below(5) {
        0 => ("grid", "dim3 grid(blocks);\n        "),
        1 => ("dim3(blocks)", ""),
        _ => ("blocks", ""),
    };
    let block_text = if rng.coin() { "threads" } else { "{b}" };
    let launch = format!("{grid_decl}level<<<{grid_text}, {block_text}>>>(out, half);");
    let mut prelude = String::new();
    // One trap at a time: an entry that breaks the relation with an update
    // that keeps it, the other way round, or neither (a verified claim
    // rests on every step of the induction; each trap breaks one).
    let trap = rng.below(3);
    let entry = |rng: &mut Rng| {
        *rng.pick(if trap == 0 {
            &[1usize, 3][..]
        } else {
            &[0, 2, 4]
        })
    };
    let (code, run): (String, Levels) = match rng.below(10) {
        // The grid and block made again from the new count at the end of
        // each level, the way they were made before the loop (exactly, or
        // rounded up: a block more than the count).
        0..=2 => {
            let shift = rng.range(1, 2);
            let count_from = *rng.pick(&["length", "length / 2"]);
            let entry_up = rng.below(3) == 0;
            let body_up = rng.below(3) == 0;
            let grid_of = |up: bool| {
                if up {
                    "(count + {b} - 1) / {b}"
                } else {
                    "count / {b}"
                }
            };
            let recompute = |up: bool, indent: &str| {
                format!(
                    "if (count < {{b}}) {{\n{indent}    grid.x = 1;\n{indent}    block.x = count;\n{indent}}} else {{\n{indent}    grid.x = {};\n{indent}    block.x = {{b}};\n{indent}}}",
                    grid_of(up)
                )
            };
            let code = format!(
                "    unsigned count = {count_from};\n    dim3 grid;\n    dim3 block;\n    {}\n    while (count != 0) {{\n        level<<<grid, block>>>(out, count);\n        count >>= {shift};\n        {}\n    }}\n",
                recompute(entry_up, "    "),
                recompute(body_up, "        ")
            );
            let halve_first = count_from == "length / 2";
            let run = move |length: u32| {
                let mut count = if halve_first { length / 2 } else { length };
                let sizes = |count: u32, up: bool| {
                    if count < b {
                        (1, count)
                    } else if up {
                        (count.wrapping_add(b - 1) / b, b)
                    } else {
                        (count / b, b)
                    }
                };
                let (mut grid, mut block) = sizes(count, entry_up);
                let mut out = Vec::new();
                for _ in 0..LEVELS {
                    if count == 0 {
                        break;
                    }
                    out.push((grid, block, count));
                    count >>= shift;
                    (grid, block) = sizes(count, body_up);
                }
                out
            };
            (code.replace("{b}", &b.to_string()), Box::new(run))
        }
        // A helper changes `half` through a pointer taken before the loop.
        3 => {
            let e = entry(rng);
            prelude.push_str(
                "static void rescale(unsigned* value)\n{\n    *value = *value / 3;\n}\n\n",
            );
            let code = format!(
                "    {}\n    unsigned* half_at = &half;\n    const unsigned threads = {{b}};\n    while ({test}) {{\n        {launch}\n        rescale(half_at);\n        blocks /= 2;\n    }}\n",
                ENTRIES[e].0
            );
            let run = move |length: u32| {
                loop_launches(
                    length,
                    e,
                    b,
                    |_| {},
                    |s| {
                        s.half /= 3;
                        s.blocks /= 2;
                    },
                )
            };
            (code.replace("{b}", &b.to_string()), Box::new(run))
        }
        // A `continue` on odd lengths skips halving the blocks after the
        // length was halved.
        4 => {
            let e = entry(rng);
            let code = format!(
                "    {}\n    const unsigned threads = {{b}};\n    while ({test}) {{\n        {launch}\n        half /= 2;\n        if (length & 1)\n            continue;\n        blocks /= 2;\n    }}\n",
                ENTRIES[e].0
            );
            let run = move |length: u32| {
                loop_launches(
                    length,
                    e,
                    b,
                    |_| {},
                    |s| {
                        s.half /= 2;
                        if s.length & 1 == 0 {
                            s.blocks /= 2;
                        }
                    },
                )
            };
            (code.replace("{b}", &b.to_string()), Box::new(run))
        }
        // An entry and an update, the update after the launch or before it.
        _ => {
            let e = entry(rng);
            let u = *rng.pick(if trap == 1 {
                &[1usize, 5, 6, 8][..]
            } else {
                &[0, 2, 3, 4, 7]
            });
            let update_first = rng.below(3) == 0;
            let body = if update_first {
                format!("{}\n        {launch}", UPDATES[u].0)
            } else {
                format!("{launch}\n        {}", UPDATES[u].0)
            };
            let code = format!(
                "    {}\n    const unsigned threads = {{b}};\n    while ({test}) {{\n        {body}\n    }}\n",
                ENTRIES[e].0
            );
            let run = move |length: u32| {
                let update = |s: &mut Level| (UPDATES[u].1)(s, b);
                let nothing = |_: &mut Level| {};
                if update_first {
                    loop_launches(length, e, b, update, nothing)
                } else {
                    loop_launches(length, e, b, nothing, update)
                }
            };
            (code.replace("{b}", &b.to_string()), Box::new(run))
        }
    };
    // The host's launches: (grid, block, half). A launch of no block or
    // no thread runs nothing; a grid over 2^31 - 1 blocks fails to launch.
    let valid =
        |&(g, bl, _): &(u32, u32, u32)| (1..(1 << 31)).contains(&g) && (1..=1024).contains(&bl);
    let racy = truth_lengths().any(|length| {
        run(length)
            .into_iter()
            .filter(valid)
            .any(|(g, bl, h)| offsets_meet(u64::from(g) * u64::from(bl), h))
    });
    let mut launches: Vec<(u32, u32, u32)> = sampled_lengths(b)
        .into_iter()
        .flat_map(&run)
        .filter(valid)
        .filter(|&(g, bl, _)| u64::from(g) * u64::from(bl) <= 512)
        .collect();
    launches.sort_unstable();
    launches.dedup();
    let host_launches = launches
        .iter()
        .map(|&(g, bl, h)| HostLaunch {
            shape: one_d(Dim::OneOf(vec![g]), Dim::OneOf(vec![bl])),
            scalars: vec![("half".to_string(), i64::from(h))],
        })
        .collect();
    let variant = code.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    let prelude =
        format!("{prelude}static void run_levels(float* out, unsigned length)\n{{\n{code}}}\n\n");
    let mut k = Src::default();
    k.line("#include \"kern.cuh\"");
    k.line("");
    k.line("__global__ void level(float* out, unsigned half)");
    k.line("{");
    k.line("    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;");
    k.line("    out[gid] = 1.0f;");
    k.line("    out[gid + half] = 2.0f;");
    k.line("}");
    let mut case = host_case(
        rng,
        Family::LoopRelations,
        ("level", k),
        vec![
            param("out", ParamKind::Pointer),
            param("half", ParamKind::Unsigned),
        ],
        &prelude,
        "    run_levels((float*)d, argc > 1 ? (unsigned)atoi(argv[1]) % 4096u : 4095u);\n",
        one_d(Dim::Any, Dim::Any),
        Vec::new(),
        racy,
        format!("{b} threads: {variant}"),
    );
    case.host_launches = host_launches;
    case
}

/// A function of the command line's block size, as C computes it on `int`.
type BlockMap = fn(i64) -> i64;

/// A statement of a `case` section before its launch: it changes
/// `threads`.
const MUTATIONS: [(&str, BlockMap); 3] = [
    ("threads *= 2;", |t| t * 2),
    ("threads += 1;", |t| t + 1),
    ("threads /= 2;", |t| t / 2),
];

/// A `switch` scrutinee over `threads` and the label values it is drawn
/// with (each reached by block sizes of at most 64 or so threads).
const SCRUTINEES: [(&str, BlockMap, &[i64]); 4] = [
    ("threads", |t| t, &[16, 32, 48, 64]),
    ("threads / 2", |t| t / 2, &[8, 16, 24, 32]),
    ("(threads + 31) / 32", |t| (t + 31) / 32, &[1, 2]),
    ("threads >> 4", |t| t >> 4, &[1, 2, 3, 4]),
];

/// One section of the `switch`: its labels (`None`: `default`), a
/// statement changing `threads` before the launch, the width it passes,
/// whether it ends in `break`.
struct Section {
    labels: Vec<Option<i64>>,
    mutation: Option<usize>,
    width: i64,
    breaks: bool,
}

// `stamp` writes `rows[blockIdx.x * w + threadIdx.x]` from two blocks:
// their rows meet exactly when the block is wider than `w`. A host function
// takes the block size from the command line and dispatches on it with a
// `switch`: each section launches with a width of its own, the block made
// before the switch (`dim3 block(threads)`) or passed as `threads`; labels
// grouped, sections falling through into the next, a `default`, or
// `threads` changed before the launch. The generator runs the switch for
// every block size.
pub(super) fn switch_cases(rng: &mut Rng) -> Case {
    let s = rng.below(SCRUTINEES.len() as u64) as usize;
    let (scrutinee_text, scrutinee, label_pool) = SCRUTINEES[s];
    let dim3_block = rng.coin();
    let mut pool: Vec<i64> = label_pool.to_vec();
    let mut sections = Vec::new();
    let count = rng.range(1, pool.len().min(3) as u32);
    for _ in 0..count {
        let mut labels = Vec::new();
        for _ in 0..rng.range(1, 2) {
            if pool.is_empty() {
                break;
            }
            let i = rng.below(pool.len() as u64) as usize;
            labels.push(Some(pool.remove(i)));
        }
        if labels.is_empty() {
            break;
        }
        sections.push(labels);
    }
    let default = rng.below(6);
    if default == 1 {
        sections.push(vec![None]);
    } else if default == 2 {
        sections.insert(0, vec![None]);
    }
    // The widest block each label lets through, for a width that fits.
    let widest = |labels: &[Option<i64>]| {
        (1..=1024)
            .filter(|&t| labels.iter().any(|l| *l == Some(scrutinee(t))))
            .max()
            .unwrap_or(64)
    };
    let sections: Vec<Section> = sections
        .into_iter()
        .map(|labels| {
            let width = if rng.below(4) != 0 {
                widest(&labels)
            } else {
                *rng.pick(&[16i64, 32, 64])
            };
            Section {
                mutation: (rng.below(8) == 0).then(|| rng.below(MUTATIONS.len() as u64) as usize),
                width,
                breaks: rng.below(4) != 0,
                labels,
            }
        })
        .collect();
    let block_text = if dim3_block { "block" } else { "threads" };
    let mut code = String::new();
    if dim3_block {
        code.push_str("    dim3 block(threads);\n");
    }
    code.push_str(&format!("    switch ({scrutinee_text}) {{\n"));
    for sec in &sections {
        for l in &sec.labels {
            match l {
                Some(v) => code.push_str(&format!("    case {v}:\n")),
                None => code.push_str("    default:\n"),
            }
        }
        if let Some(m) = sec.mutation {
            code.push_str(&format!("        {}\n", MUTATIONS[m].0));
        }
        code.push_str(&format!(
            "        stamp<<<2, {block_text}>>>(rows, {});\n",
            sec.width
        ));
        if sec.breaks {
            code.push_str("        break;\n");
        }
    }
    code.push_str("    }\n");
    // Every block size the command line can give (and the invalid ones
    // around them): the launches, (block, width), the switch makes.
    let mut launches: Vec<(i64, i64)> = Vec::new();
    for t0 in -64..=1100i64 {
        let v = scrutinee(t0);
        let start = sections
            .iter()
            .position(|sec| sec.labels.contains(&Some(v)))
            .or_else(|| sections.iter().position(|sec| sec.labels.contains(&None)));
        let Some(start) = start else { continue };
        let mut t = t0;
        for sec in &sections[start..] {
            if let Some(m) = sec.mutation {
                t = (MUTATIONS[m].1)(t);
            }
            let block = if dim3_block { t0 } else { t };
            if (1..=1024).contains(&block) {
                launches.push((block, sec.width));
            }
            if sec.breaks {
                break;
            }
        }
    }
    launches.sort_unstable();
    launches.dedup();
    let racy = launches.iter().any(|&(block, w)| block > w);
    // The simulator: per width, the blocks of at most 80 threads it is
    // launched with.
    let mut widths: Vec<i64> = launches.iter().map(|&(_, w)| w).collect();
    widths.dedup();
    widths.sort_unstable();
    widths.dedup();
    let host_launches = widths
        .iter()
        .filter_map(|&w| {
            let blocks: Vec<u32> = launches
                .iter()
                .filter(|&&(block, lw)| lw == w && block <= 80)
                .map(|&(block, _)| block as u32)
                .collect();
            (!blocks.is_empty()).then(|| HostLaunch {
                shape: one_d(Dim::OneOf(vec![2]), Dim::OneOf(blocks)),
                scalars: vec![("w".to_string(), w)],
            })
        })
        .collect();
    let variant = code.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    let prelude = format!("static void stamp_all(int* rows, int threads)\n{{\n{code}}}\n\n");
    let mut k = Src::default();
    k.line("#include \"kern.cuh\"");
    k.line("");
    k.line("__global__ void stamp(int* rows, int w)");
    k.line("{");
    k.line("    rows[blockIdx.x * w + threadIdx.x] = threadIdx.x;");
    k.line("}");
    let mut case = host_case(
        rng,
        Family::SwitchCases,
        ("stamp", k),
        vec![
            param("rows", ParamKind::Pointer),
            param("w", ParamKind::Int),
        ],
        &prelude,
        "    stamp_all(d, argc > 1 ? atoi(argv[1]) : 32);\n",
        one_d(Dim::OneOf(vec![2]), Dim::Any),
        Vec::new(),
        racy,
        variant,
    );
    case.host_launches = host_launches;
    case
}

/// A launch site of the option-sites family: the grid's `x` and `y` and
/// the block's `x`, each `None` where the host passes a run-time value.
#[derive(Clone, Copy, Debug)]
struct Site {
    gx: Option<u32>,
    gy: Option<u32>,
    bx: Option<u32>,
}

impl Site {
    fn text(&self) -> String {
        let g = |v: Option<u32>, name: &str| v.map_or(name.to_string(), |v| v.to_string());
        format!(
            "    shift_rows<<<dim3({}, {}), {}>>>(out);\n",
            g(self.gx, "n"),
            g(self.gy, "m"),
            g(self.bx, "t")
        )
    }
}

// `shift_rows` writes `out[blockIdx.y * W + blockIdx.x * blockDim.x +
// threadIdx.x]`: two rows of blocks meet exactly when the grid has two
// rows and a row's threads (`gridDim.x * blockDim.x`) pass `W`. The file's
// directive fixes the block (`--block-dim B`), and sometimes the grid; its
// host function launches the kernel at one to three sites, each with
// constant or run-time sizes. What the options mean (docs/editors.md, the
// sizes the user fixed add to the host's): the launches are those of the
// sites the user's sizes agree with (no constant size of the site differs
// from the user's), each under the user's sizes and the site's own where
// the user left one open; when none agrees, the user's sizes alone, any
// size the user left open.
pub(super) fn option_sites(rng: &mut Rng) -> Case {
    let w = *rng.pick(&[16u32, 32, 64, 128]);
    let user_block = *rng.pick(&[16u32, 32, 64]);
    let user_grid = (rng.below(3) == 0).then(|| [*rng.pick(&[1u32, 2, 4]), *rng.pick(&[1u32, 2])]);
    // One case in three has no site the block agrees with: each site's
    // constant block is another size (then the grid is any grid: keeping a
    // contradicted site's grid would be a launch the user ruled out).
    let contradicted = rng.below(3) == 0;
    let sites: Vec<Site> = (0..rng.range(1, 3))
        .map(|_| {
            if contradicted {
                let others: Vec<u32> = [16u32, 32, 64]
                    .into_iter()
                    .filter(|&b| b != user_block)
                    .collect();
                return Site {
                    gx: Some(*rng.pick(&[1, 2, 4])),
                    gy: Some(*rng.pick(&[1, 2])),
                    bx: Some(*rng.pick(&others)),
                };
            }
            let constant =
                |rng: &mut Rng, values: &[u32]| (rng.below(4) != 0).then(|| *rng.pick(values));
            Site {
                gx: constant(rng, &[1, 2, 4]),
                gy: constant(rng, &[1, 2]),
                bx: constant(rng, &[16, 32, 64]),
            }
        })
        .collect();
    let agrees = |s: &Site| {
        let differs = |site: Option<u32>, user: Option<u32>| matches!((site, user), (Some(a), Some(b)) if a != b);
        !differs(s.bx, Some(user_block))
            && !differs(s.gx, user_grid.map(|g| g[0]))
            && !differs(s.gy, user_grid.map(|g| g[1]))
    };
    let agreeing: Vec<&Site> = sites.iter().filter(|s| agrees(s)).collect();
    // The grids (x, y) of the launches: a user's size, else the agreeing
    // site's, else any.
    let grids: Vec<[Option<u32>; 2]> = match user_grid {
        Some(g) => vec![[Some(g[0]), Some(g[1])]],
        None if agreeing.is_empty() => vec![[None, None]],
        None => agreeing.iter().map(|s| [s.gx, s.gy]).collect(),
    };
    let racy = grids
        .iter()
        .any(|[gx, gy]| gy.is_none_or(|y| y >= 2) && gx.is_none_or(|x| x * user_block > w));
    let dim = |v: Option<u32>| v.map_or(Dim::Any, |v| Dim::OneOf(vec![v]));
    let launches: Vec<LaunchShape> = grids
        .iter()
        .map(|[gx, gy]| LaunchShape {
            grid: [dim(*gx), dim(*gy), Dim::OneOf(vec![1])],
            block: [
                Dim::OneOf(vec![user_block]),
                Dim::OneOf(vec![1]),
                Dim::OneOf(vec![1]),
            ],
        })
        .collect();
    let directive = match user_grid {
        Some([x, y]) => format!("--block-dim {user_block} --grid-dim {x},{y},1"),
        None => format!("--block-dim {user_block}"),
    };
    let mut k = Src::default();
    k.line(&format!("// syncscope-args: {directive}"));
    k.line("#include <cuda_runtime.h>");
    k.line("");
    k.line("__global__ void shift_rows(float* out)");
    k.line("{");
    k.line(&format!(
        "    out[blockIdx.y * {w} + blockIdx.x * blockDim.x + threadIdx.x] = (float)blockIdx.y;"
    ));
    k.line("}");
    k.line("");
    k.line("void run(float* out, int n, int m, int t)");
    k.line("{");
    let site_text: String = sites.iter().map(Site::text).collect();
    k.text.push_str(&site_text);
    k.text.push_str("}\n");
    let variant = format!(
        "{directive}; W = {w}; sites: {}",
        site_text.trim().replace('\n', " ")
    );
    let mut case = single(
        "shift_rows",
        k,
        vec![param("out", ParamKind::Pointer)],
        launches,
        Truth {
            racy,
            ..Truth::default()
        },
        variant,
    );
    case.family = Family::OptionSites;
    case
}

/// A form of the host-while family: its C text (the host function's body,
/// `{launch}` where the launch goes) and the strides it launches with for
/// a length `n`, at most [`LEVELS`] of them.
type WhileForm = (&'static str, fn(u32) -> Vec<u32>);

/// The strides a loop launches with while `keep(s)` holds, starting from
/// `s` and stepping by `step` before (`before`) or after the launch.
fn strides_while(
    mut s: u32,
    keep: fn(u32) -> bool,
    step: fn(u32) -> u32,
    before: bool,
) -> Vec<u32> {
    let mut out = Vec::new();
    while keep(s) && out.len() < LEVELS {
        if before {
            s = step(s);
        }
        out.push(s);
        if !before {
            s = step(s);
        }
    }
    out
}

/// The forms whose every launch has a nonzero stride come first.
const SAFE_WHILE_FORMS: [WhileForm; 4] = [
    (
        "    unsigned s = n;\n    while (s > 0) {\n        {launch}\n        s >>= 1;\n    }\n",
        |n| strides_while(n, |s| s > 0, |s| s >> 1, false),
    ),
    (
        "    unsigned s = n;\n    while (s != 0) {\n        {launch}\n        s /= 2;\n    }\n",
        |n| strides_while(n, |s| s != 0, |s| s / 2, false),
    ),
    (
        "    g_stride = n;\n    while (g_stride > 0) {\n        {launch}\n        g_stride >>= 1;\n    }\n",
        |n| strides_while(n, |s| s > 0, |s| s >> 1, false),
    ),
    (
        "    unsigned s = n;\n    while (s > 0) {\n        {launch}\n        if (s & 1)\n            s -= 1;\n        s >>= 1;\n    }\n",
        |n| strides_while(n, |s| s > 0, |s| (s - (s & 1)) >> 1, false),
    ),
];

/// Forms where the test does not hold at the launch (or the loop is not a
/// `while`), and one where it holds but the stride is written before the
/// launch.
const TRAP_WHILE_FORMS: [WhileForm; 8] = [
    (
        "    unsigned s = n;\n    while (s > 0) {\n        s >>= 1;\n        {launch}\n    }\n",
        |n| strides_while(n, |s| s > 0, |s| s >> 1, true),
    ),
    (
        "    unsigned s = n;\n    while (s > 0) {\n        s -= 1;\n        {launch}\n    }\n",
        |n| strides_while(n, |s| s > 0, |s| s - 1, true),
    ),
    (
        "    unsigned s = n;\n    while (s > 1) {\n        s -= 1;\n        {launch}\n    }\n",
        |n| strides_while(n, |s| s > 1, |s| s - 1, true),
    ),
    (
        "    unsigned s = n;\n    unsigned* s_at = &s;\n    while (s > 0) {\n        quarter(s_at);\n        {launch}\n        s >>= 1;\n    }\n",
        |n| strides_while(n, |s| s > 0, |s| (s / 4) >> 1, false)
            .into_iter()
            .map(|s| s / 4)
            .collect(),
    ),
    (
        "    unsigned s = n;\n    unsigned& s_ref = s;\n    while (s > 0) {\n        s_ref /= 4;\n        {launch}\n        s >>= 1;\n    }\n",
        |n| strides_while(n, |s| s > 0, |s| (s / 4) >> 1, false)
            .into_iter()
            .map(|s| s / 4)
            .collect(),
    ),
    (
        "    g_stride = n;\n    while (g_stride > 0) {\n        quarter_stride();\n        {launch}\n        g_stride >>= 1;\n    }\n",
        |n| strides_while(n, |s| s > 0, |s| (s / 4) >> 1, false)
            .into_iter()
            .map(|s| s / 4)
            .collect(),
    ),
    (
        "    unsigned s = n;\n    do {\n        {launch}\n        s >>= 1;\n    } while (s > 0);\n",
        |n| {
            let mut out = vec![n];
            out.extend(strides_while(n >> 1, |s| s > 0, |s| s >> 1, false));
            out
        },
    ),
    (
        "    unsigned s = n;\n    while (s > 0) {\n        if (s & 1)\n            s -= 1;\n        {launch}\n        s >>= 1;\n    }\n",
        |n| strides_while(n, |s| s > 0, |s| s >> 1, false)
            .into_iter()
            .map(|s| s - (s & 1))
            .collect(),
    ),
];

// `spread` writes `cells[threadIdx.x * stride]`: every thread its own cell
// unless the stride is 0 (strides stay below 4096: no product wraps). A
// host function launches it from a `while` loop over the stride, a length
// from the command line below 4096: the loop's test `s > 0` holds at a
// launch the body reaches before writing `s`, and not after `s >>= 1` or
// `s -= 1` before the launch, a write through a pointer, a reference or a
// helper writing the global it tests, nor in a `do`-`while`'s first trip.
pub(super) fn host_while_tests(rng: &mut Rng) -> Case {
    let threads = *rng.pick(&[32u32, 64]);
    let (form, strides_of) = if rng.coin() {
        *rng.pick(&SAFE_WHILE_FORMS)
    } else {
        *rng.pick(&TRAP_WHILE_FORMS)
    };
    let global = form.contains("g_stride");
    let arg = if global { "g_stride" } else { "s" };
    let code = form.replace(
        "{launch}",
        &format!("spread<<<1, {threads}>>>(cells, {arg});"),
    );
    let racy = (0..4096u32).any(|n| strides_of(n).contains(&0));
    // The simulator runs the strides of small lengths (a stride past 64
    // puts most threads past the 4096-element buffers).
    let mut strides: Vec<u32> = [0u32, 1, 2, 3, 4, 5, 7, 8, 33, 63]
        .into_iter()
        .flat_map(strides_of)
        .collect();
    strides.sort_unstable();
    strides.dedup();
    let host_launches = strides
        .iter()
        .map(|&s| HostLaunch {
            shape: LaunchShape::exact([1, 1, 1], [threads, 1, 1]),
            scalars: vec![("stride".to_string(), i64::from(s))],
        })
        .collect();
    let mut prelude = String::new();
    if global {
        prelude.push_str("static unsigned g_stride;\n\nstatic void quarter_stride()\n{\n    g_stride /= 4;\n}\n\n");
    }
    if form.contains("quarter(") {
        prelude
            .push_str("static void quarter(unsigned* value)\n{\n    *value = *value / 4;\n}\n\n");
    }
    prelude.push_str(&format!(
        "static void spread_levels(int* cells, unsigned n)\n{{\n{code}}}\n\n"
    ));
    let variant = code.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    let mut k = Src::default();
    k.line("#include \"kern.cuh\"");
    k.line("");
    k.line("__global__ void spread(int* cells, unsigned stride)");
    k.line("{");
    k.line("    cells[threadIdx.x * stride] = threadIdx.x;");
    k.line("}");
    let mut case = host_case(
        rng,
        Family::HostWhileTests,
        ("spread", k),
        vec![
            param("cells", ParamKind::Pointer),
            param("stride", ParamKind::Unsigned),
        ],
        &prelude,
        "    spread_levels(d, argc > 1 ? (unsigned)atoi(argv[1]) % 4096u : 4095u);\n",
        LaunchShape::exact([1, 1, 1], [threads, 1, 1]),
        Vec::new(),
        racy,
        format!("{threads} threads: {variant}"),
    );
    case.host_launches = host_launches;
    case
}
