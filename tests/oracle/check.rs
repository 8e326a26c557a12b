//! The oracle: the engine's claims against the simulator (and, for
//! generated kernels, against the generator's truth).
//!
//! A claim is checked by running the simulator at many small launches of
//! the launches the kernel can run under, with boundary inputs: a
//! `verified` kernel must give no race and no divergence; a barrier called
//! redundant, deleted from the text, must give no race; a benign race's
//! threads must write one value.

use super::generate::{Case, Dim, HostLaunch, LaunchShape, Param, ParamKind};
use super::rng::Rng;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use syncscope_core::{FileReport, FindingKind, KernelStatus};
use syncscope_sim::{Fill, Inputs, Launch, Order, Outcome, Scalar, SimOptions};

/// Simulations per claim (each a launch, inputs, fill and order of its own).
pub const RUNS_PER_CLAIM: usize = 24;

/// A claim of the engine's report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    Verified {
        kernel: String,
    },
    /// `start..end`: the barrier call's bytes in the checked file.
    Redundant {
        kernel: String,
        line: usize,
        start: usize,
        end: usize,
    },
    /// The lines of the writes said to race benignly.
    Benign {
        kernel: String,
        lines: Vec<usize>,
    },
}

impl Claim {
    pub fn kernel(&self) -> &str {
        match self {
            Claim::Verified { kernel }
            | Claim::Redundant { kernel, .. }
            | Claim::Benign { kernel, .. } => kernel,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Claim::Verified { kernel } => format!("`{kernel}` verified"),
            Claim::Redundant { kernel, line, .. } => {
                format!("`{kernel}`: barrier at line {line} redundant")
            }
            Claim::Benign { kernel, lines } => {
                format!("`{kernel}`: benign race at lines {lines:?}")
            }
        }
    }
}

/// The claims of a report: verified kernels, redundant barriers, benign races.
pub fn claims(report: &FileReport) -> Vec<Claim> {
    let mut out = Vec::new();
    for k in &report.kernels {
        if k.status == KernelStatus::Verified {
            out.push(Claim::Verified {
                kernel: k.name.clone(),
            });
        }
    }
    for f in &report.findings {
        let Some(kernel) = f.kernel.clone() else {
            continue;
        };
        match f.kind {
            FindingKind::RedundantBarrier => out.push(Claim::Redundant {
                kernel,
                line: f.span.start.line as usize + 1,
                start: f.span.start.offset as usize,
                end: f.span.end.offset as usize,
            }),
            FindingKind::BenignRace => {
                let mut lines = vec![f.span.start.line as usize + 1];
                lines.extend(f.related.iter().map(|r| r.span.start.line as usize + 1));
                for p in &f.pairs {
                    lines.push(p.first.start.line as usize + 1);
                    lines.push(p.second.start.line as usize + 1);
                }
                lines.sort_unstable();
                lines.dedup();
                out.push(Claim::Benign { kernel, lines });
            }
            _ => {}
        }
    }
    out
}

/// The benign lines the report claims for `kernel`.
pub fn benign_lines(claims: &[Claim], kernel: &str) -> Vec<usize> {
    claims
        .iter()
        .filter_map(|c| match c {
            Claim::Benign { kernel: k, lines } if k == kernel => Some(lines.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The text with the bytes `start..end` blanked (newlines kept, so every
/// line keeps its number): the barrier statement deleted.
pub fn without(text: &str, start: usize, end: usize) -> String {
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..start]);
    out.extend(
        text[start..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' }),
    );
    out.push_str(&text[end..]);
    out
}

/// Counters of one suite, printed as its summary line.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub cases: usize,
    pub claims: usize,
    pub simulations: usize,
    pub clean: usize,
    pub vacuous: usize,
    /// Runs that overflowed a signed integer (undefined behaviour).
    pub overflow: usize,
    pub out_of_bounds: usize,
    pub step_limit: usize,
    /// Benign same-value races the simulator saw, on lines the engine called benign.
    pub benign_seen: usize,
    /// Claims whose every simulation was unsupported, by the reason given.
    pub unsupported: BTreeMap<String, usize>,
    /// One line each (seed, family, claim, what refutes it) and the
    /// details (sources, launch, inputs, the simulator's race).
    pub failures: Vec<(String, String)>,
    /// Per family: cases, claims, failures.
    pub families: BTreeMap<&'static str, [usize; 3]>,
}

impl Tally {
    pub fn unsupported_total(&self) -> usize {
        self.unsupported.values().sum()
    }

    pub fn summary(&self, suite: &str) -> String {
        format!(
            "{suite}: {} cases, {} claims checked, {} simulations ({} clean, {} vacuous, {} signed overflow, {} out of bounds, {} step limit, {} benign races seen), {} claims unsupported by the simulator, {} failures",
            self.cases,
            self.claims,
            self.simulations,
            self.clean,
            self.vacuous,
            self.overflow,
            self.out_of_bounds,
            self.step_limit,
            self.benign_seen,
            self.unsupported_total(),
            self.failures.len()
        )
    }

    /// Adds another tally's counts (a part of the suite checked on another
    /// thread) to this one.
    pub fn absorb(&mut self, other: Tally) {
        self.cases += other.cases;
        self.claims += other.claims;
        self.simulations += other.simulations;
        self.clean += other.clean;
        self.vacuous += other.vacuous;
        self.overflow += other.overflow;
        self.out_of_bounds += other.out_of_bounds;
        self.step_limit += other.step_limit;
        self.benign_seen += other.benign_seen;
        for (why, n) in other.unsupported {
            *self.unsupported.entry(why).or_default() += n;
        }
        self.failures.extend(other.failures);
        for (family, counts) in other.families {
            let mine = self.families.entry(family).or_default();
            for (m, c) in mine.iter_mut().zip(counts) {
                *m += c;
            }
        }
    }

    /// One line per family: cases, claims checked, false claims.
    pub fn per_family(&self) -> String {
        self.families
            .iter()
            .map(|(f, [cases, claims, failures])| {
                format!("  {f}: {cases} cases, {claims} claims, {failures} false")
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    pub fn unsupported_reasons(&self) -> String {
        self.unsupported
            .iter()
            .map(|(r, n)| format!("  {n} x {r}"))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// One simulation: the launch, the inputs and the order of atomics.
#[derive(Clone, Debug)]
pub struct Run {
    pub launch: Launch,
    pub inputs: Inputs,
    pub order: Order,
}

impl Run {
    pub fn describe(&self) -> String {
        let scalars: Vec<String> = self
            .inputs
            .scalars
            .iter()
            .map(|(n, v)| match v {
                Scalar::Int(i) => format!("{n} = {i}"),
                Scalar::Float(f) => format!("{n} = {f:?}"),
            })
            .collect();
        format!(
            "grid {:?} block {:?}, {} buffers of {} elements, fill {:?}, order {:?}",
            self.launch.grid,
            self.launch.block,
            if scalars.is_empty() {
                "no scalars,".to_string()
            } else {
                scalars.join(", ") + ","
            },
            self.inputs.buffer_len,
            self.inputs.fill,
            self.order
        )
    }
}

const INT_VALUES: [i64; 8] = [
    0,
    1,
    -1,
    2,
    i32::MAX as i64,
    i32::MIN as i64,
    100_000_000,
    63,
];
const UNSIGNED_VALUES: [i64; 8] = [
    0,
    1,
    2,
    u32::MAX as i64,
    u32::MAX as i64 - 1,
    0x8000_0000,
    100_000_000,
    63,
];
const FLOAT_VALUES: [f64; 11] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    1e8,
    -1e8,
    3e38,
    0.1,
];

/// A boundary value (three draws in four) or a random one.
fn scalar(rng: &mut Rng, kind: ParamKind) -> Option<Scalar> {
    let boundary = rng.below(4) != 0;
    Some(match kind {
        ParamKind::Pointer => return None,
        ParamKind::Int if boundary => Scalar::Int(*rng.pick(&INT_VALUES)),
        ParamKind::Int => Scalar::Int(rng.below(2001) as i64 - 1000),
        ParamKind::Unsigned if boundary => Scalar::Int(*rng.pick(&UNSIGNED_VALUES)),
        ParamKind::Unsigned => Scalar::Int(rng.below(u64::from(u32::MAX) + 1) as i64),
        ParamKind::Float if boundary => Scalar::Float(*rng.pick(&FLOAT_VALUES)),
        ParamKind::Float => Scalar::Float((rng.below(2_000_001) as f64 - 1e6) / 1e3),
    })
}

/// Small sizes for a dimension of any size, small ones and warp edges.
const ANY_BLOCK_X: [u32; 12] = [1, 2, 3, 4, 8, 16, 31, 32, 33, 48, 64, 64];
const ANY_BLOCK_YZ: [u32; 4] = [1, 1, 2, 3];

fn dim(rng: &mut Rng, d: &Dim, any: &[u32]) -> u32 {
    match d {
        Dim::Any => *rng.pick(any),
        Dim::OneOf(v) => *rng.pick(v),
    }
}

/// A launch of `shape`: blocks of at most 64 threads and grids of at most
/// 3 blocks where the shape leaves the size free.
pub fn launch_of(rng: &mut Rng, shape: &LaunchShape) -> Launch {
    let mut block = [
        dim(rng, &shape.block[0], &ANY_BLOCK_X),
        dim(rng, &shape.block[1], &ANY_BLOCK_YZ),
        dim(rng, &shape.block[2], &ANY_BLOCK_YZ),
    ];
    // Keep a free-sized block within 64 threads.
    for d in (0..3).rev() {
        while block.iter().product::<u32>() > 64 && shape.block[d] == Dim::Any && block[d] > 1 {
            block[d] /= 2;
        }
    }
    let mut grid = [
        dim(rng, &shape.grid[0], &[1, 2, 3]),
        dim(rng, &shape.grid[1], &[1, 1, 2]),
        dim(rng, &shape.grid[2], &[1, 1, 2]),
    ];
    for d in (0..3).rev() {
        while grid.iter().product::<u32>() > 3 && shape.grid[d] == Dim::Any && grid[d] > 1 {
            grid[d] -= 1;
        }
    }
    Launch { grid, block }
}

/// `text` without its `//` and `/* */` comments (string literals are not
/// looked at: a kernel's strings do not hold `/*`).
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let line = rest.find("//");
        let block = rest.find("/*");
        match (line, block) {
            (Some(l), b) if b.is_none_or(|b| l < b) => {
                out.push_str(&rest[..l]);
                rest = rest[l..].find('\n').map_or("", |e| &rest[l + e..]);
            }
            (_, Some(b)) => {
                out.push_str(&rest[..b]);
                rest = rest[b + 2..]
                    .find("*/")
                    .map_or("", |e| &rest[b + 2 + e + 2..]);
            }
            _ => {
                out.push_str(rest);
                rest = "";
            }
        }
    }
    out
}

/// The launches the engine's verdicts speak of: `shapes` with every free
/// dimension the source never mentions fixed at 1 (the documented
/// assumption of `docs/architecture.md`: "a launch dimension the kernel
/// never mentions is 1"; a kernel that never reads `blockIdx` runs as one
/// block). Read from the text here, independently of the engine: a
/// dimension is mentioned by `threadIdx.d`/`blockDim.d` (blocks) or
/// `blockIdx.d`/`gridDim.d` (grids), and every dimension by a whole
/// `dim3` or a cooperative-groups rank or size. `text` is the kernel's
/// file without the other kernels' bodies.
pub fn within_assumptions(shapes: &[LaunchShape], text: &str) -> Vec<LaunchShape> {
    // Comments name coordinates too (a file's header describing another
    // kernel): only code counts, as the engine reads only code.
    let compact: String = without_comments(text)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let whole_block = [
        "=threadIdx;",
        "(threadIdx)",
        "=blockDim;",
        "thread_rank",
        "thread_index",
        "dim_threads",
        "size()",
        "num_threads",
    ]
    .iter()
    .any(|w| compact.contains(w));
    let whole_grid = [
        "=blockIdx;",
        "=gridDim;",
        "group_index",
        "block_rank",
        "num_blocks",
        "grid_group",
    ]
    .iter()
    .any(|w| compact.contains(w));
    let mentioned = |a: &str, b: &str, d: &str| {
        compact.contains(&format!("{a}.{d}")) || compact.contains(&format!("{b}.{d}"))
    };
    shapes
        .iter()
        .map(|shape| {
            let mut s = shape.clone();
            for (i, d) in ["x", "y", "z"].iter().enumerate() {
                if s.block[i] == Dim::Any && !whole_block && !mentioned("threadIdx", "blockDim", d)
                {
                    s.block[i] = Dim::OneOf(vec![1]);
                }
                if s.grid[i] == Dim::Any && !whole_grid && !mentioned("blockIdx", "gridDim", d) {
                    s.grid[i] = Dim::OneOf(vec![1]);
                }
            }
            s
        })
        .collect()
}

/// [`within_assumptions`] of each host launch's sizes; its scalars kept.
pub fn within_assumptions_of_host_launches(launches: &[HostLaunch], text: &str) -> Vec<HostLaunch> {
    launches
        .iter()
        .map(|l| HostLaunch {
            shape: within_assumptions(std::slice::from_ref(&l.shape), text).remove(0),
            scalars: l.scalars.clone(),
        })
        .collect()
}

/// Threads simulated per claim, summed over its runs, beyond the first
/// three runs: a claim under a fixed launch of thousands of threads gets
/// fewer runs than one at small launches (the simulator runs each thread).
pub const THREADS_PER_CLAIM: u64 = 24 * 512;

fn threads(l: &Launch) -> u64 {
    l.grid
        .iter()
        .chain(l.block.iter())
        .map(|&x| u64::from(x))
        .product()
}

/// The simulations of one claim: `count` runs drawn from `seed`, fewer
/// when their launches are large (see [`THREADS_PER_CLAIM`]).
pub fn runs(seed: u64, shapes: &[LaunchShape], params: &[Param], count: usize) -> Vec<Run> {
    runs_with_host_values(seed, shapes, params, &[], false, count)
}

/// [`runs`], with the parameters the host fixes (`host_values`: a name and
/// the values its launches pass) drawn from those values only: a launch
/// the host never makes says nothing about a claim made under the host's
/// facts. With `sorted_inputs` (the host sorts the buffers before every
/// launch) only fills in ascending order within the buffers' range are drawn.
pub fn runs_with_host_values(
    seed: u64,
    shapes: &[LaunchShape],
    params: &[Param],
    host_values: &[(String, Vec<i64>)],
    sorted_inputs: bool,
    count: usize,
) -> Vec<Run> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|i| {
            let shape = &shapes[i % shapes.len()];
            let launch = launch_of(&mut rng, shape);
            let scalars = params
                .iter()
                .filter_map(|p| {
                    let fixed = host_values.iter().find(|(name, _)| *name == p.name);
                    match fixed {
                        Some((_, values)) => Some(Scalar::Int(*rng.pick(values))),
                        None => scalar(&mut rng, p.kind),
                    }
                    .map(|v| (p.name.clone(), v))
                })
                .collect();
            finish_run(&mut rng, launch, scalars, sorted_inputs)
        })
        .scan(0u64, |spent, run| {
            *spent += threads(&run.launch);
            Some((*spent, run))
        })
        .enumerate()
        .take_while(|(i, (spent, _))| *i < 3 || *spent <= THREADS_PER_CLAIM)
        .map(|(_, (_, run))| run)
        .collect()
}

/// A run of `launch` with `scalars`: its fill and order drawn from `rng`.
fn finish_run(
    rng: &mut Rng,
    launch: Launch,
    scalars: BTreeMap<String, Scalar>,
    sorted_inputs: bool,
) -> Run {
    let fill = match rng.below(if sorted_inputs { 3 } else { 5 }) {
        0 => Fill::Zero,
        1 => Fill::Index,
        2 => Fill::Constant(1.0),
        3 => Fill::Constant(-1.0),
        _ => Fill::Random(rng.next_u64()),
    };
    let order = match rng.below(4) {
        0 => Order::Forward,
        1 => Order::Reverse,
        2 => Order::Seeded(rng.next_u64()),
        _ => Order::Interleaved(rng.next_u64()),
    };
    Run {
        launch,
        inputs: Inputs {
            scalars,
            buffer_len: 4096,
            fill,
        },
        order,
    }
}

/// [`runs`] under the launches the host makes (`host_launches`), each run's
/// sizes and the scalars its launch passes drawn from one entry (every
/// entry in turn when there are no more than `count`, else at random): the arguments stay with the sizes they
/// are passed with. Parameters no entry fixes are drawn as any value.
pub fn runs_of_host_launches(
    seed: u64,
    host_launches: &[HostLaunch],
    params: &[Param],
    sorted_inputs: bool,
    count: usize,
) -> Vec<Run> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|i| {
            let entry = if host_launches.len() <= count && i < host_launches.len() {
                &host_launches[i]
            } else {
                rng.pick(host_launches)
            };
            let launch = launch_of(&mut rng, &entry.shape);
            let scalars = params
                .iter()
                .filter_map(|p| {
                    match entry.scalars.iter().find(|(name, _)| *name == p.name) {
                        Some((_, v)) => Some(Scalar::Int(*v)),
                        None => scalar(&mut rng, p.kind),
                    }
                    .map(|v| (p.name.clone(), v))
                })
                .collect();
            finish_run(&mut rng, launch, scalars, sorted_inputs)
        })
        .scan(0u64, |spent, run| {
            *spent += threads(&run.launch);
            Some((*spent, run))
        })
        .enumerate()
        .take_while(|(i, (spent, _))| *i < 3 || *spent <= THREADS_PER_CLAIM)
        .map(|(_, (_, run))| run)
        .collect()
}

/// Where a simulation's verdict on a claim stands.
pub enum Verdict {
    Holds,
    /// Every run was unsupported (the reason).
    Unsupported(String),
    /// The run and what the simulator found.
    Broken(Run, Outcome),
}

/// What the kernel file to simulate is: its path (for includes), its text.
pub struct Subject<'a> {
    pub file: &'a Path,
    pub text: &'a str,
    pub kernel: &'a str,
    pub defines: &'a [(String, String)],
    pub include_dirs: &'a [PathBuf],
    /// The claim includes the kernel's `assert`s (a `verified` kernel).
    pub assertions_hold: bool,
    /// Only races between the lines of `benign` count (a benign claim in
    /// a kernel that may race elsewhere).
    pub only_benign_lines: bool,
}

/// Runs `subject` under `runs`: no race (but two writes that stored one
/// value) and no divergence may appear; with `only_benign_lines`, only a
/// race between two lines of `benign` that wrote different values counts.
pub fn race_free(subject: &Subject, runs: &[Run], benign: &[usize], tally: &mut Tally) -> Verdict {
    let mut unsupported = None;
    let mut supported = false;
    for run in runs {
        let opts = SimOptions {
            defines: subject.defines.to_vec(),
            include_dirs: subject.include_dirs.to_vec(),
            max_steps: 5_000_000,
            order: run.order,
            ..SimOptions::default()
        };
        tally.simulations += 1;
        let out = syncscope_sim::simulate(
            subject.file,
            subject.text,
            subject.kernel,
            &run.launch,
            &run.inputs,
            &opts,
        );
        match &out {
            Outcome::Clean => tally.clean += 1,
            Outcome::Vacuous => tally.vacuous += 1,
            // Undefined behaviour: no claim covers the run (the engine
            // reasons in mathematical integers).
            Outcome::SignedOverflow { .. } => tally.overflow += 1,
            Outcome::OutOfBounds { .. } => tally.out_of_bounds += 1,
            Outcome::StepLimit => tally.step_limit += 1,
            Outcome::Unsupported(what) => {
                unsupported.get_or_insert_with(|| what.clone());
                // The same text is unsupported under every launch.
                break;
            }
            // Two plain writes that stored one value (the simulator reports
            // such a race only when the run has no other): benign.
            Outcome::Race(r) if r.same_value => tally.benign_seen += 1,
            // A benign claim is refuted only by its own lines writing
            // different values; the kernel may race elsewhere.
            Outcome::Race(r) if subject.only_benign_lines => {
                if benign.contains(&r.a.line)
                    && benign.contains(&r.b.line)
                    && r.a.write
                    && r.b.write
                {
                    return Verdict::Broken(run.clone(), out);
                }
                tally.clean += 1
            }
            Outcome::Divergence { .. } | Outcome::AssertionFailed { .. }
                if subject.only_benign_lines =>
            {
                tally.clean += 1
            }
            // A verified kernel's checked claims (`__assert`) hold too; a
            // C `assert` stops the thread, which the engine takes as an
            // assumption (like `__requires`); a barrier's removal is
            // judged by races alone.
            Outcome::AssertionFailed { line, .. }
                if !subject.assertions_hold
                    || !subject
                        .text
                        .lines()
                        .nth(line.saturating_sub(1))
                        .is_some_and(|l| l.contains("__assert")) =>
            {
                tally.vacuous += 1
            }
            Outcome::Race(_) | Outcome::Divergence { .. } | Outcome::AssertionFailed { .. } => {
                return Verdict::Broken(run.clone(), out);
            }
        }
        supported |= !matches!(out, Outcome::Unsupported(_));
    }
    match unsupported {
        Some(what) if !supported => Verdict::Unsupported(what),
        _ => Verdict::Holds,
    }
}

/// Runs a value probe (see [`Case::value_probe`]): `Some(run)` when two
/// threads computed different values (the probe's out-of-bounds report).
pub fn values_differ(
    subject: &Subject,
    runs: &[Run],
    tally: &mut Tally,
) -> Result<Option<Run>, String> {
    let mut unsupported = None;
    for run in runs {
        tally.simulations += 1;
        let opts = SimOptions {
            max_steps: 5_000_000,
            order: run.order,
            ..SimOptions::default()
        };
        match syncscope_sim::simulate(
            subject.file,
            subject.text,
            subject.kernel,
            &run.launch,
            &run.inputs,
            &opts,
        ) {
            Outcome::OutOfBounds { array, .. } if array == "mismatch" => {
                return Ok(Some(run.clone()))
            }
            Outcome::Unsupported(what) => {
                unsupported = Some(what);
                break;
            }
            Outcome::Vacuous => tally.vacuous += 1,
            _ => tally.clean += 1,
        }
    }
    match unsupported {
        Some(w) => Err(w),
        None => Ok(None),
    }
}

/// The command that reruns one generated seed.
pub fn rerun_command(case: &Case) -> String {
    format!(
        "SYNCSCOPE_ORACLE_FAMILY={} SYNCSCOPE_ORACLE_SEED={} SYNCSCOPE_ORACLE_VERBOSE=1 cargo test -p syncscope-tests --test oracle generated_kernels -- --nocapture",
        case.family.name(),
        case.seed
    )
}

/// A case's files in a fresh folder of the temporary directory.
pub fn write_case(case: &Case, root: &Path) -> PathBuf {
    let dir = root.join(format!("case-{}", case.seed));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp folder");
    for (name, text) in &case.files {
        std::fs::write(dir.join(name), text).expect("write case file");
    }
    dir
}

/// The engine's report of the case's kernel file, checked in its project
/// folder exactly as `syncscope check FILE` does.
pub fn engine_report(kernel_file: &Path) -> FileReport {
    let mut args = syncscope::cli::parse_check_args(&crate::VERDICT_LIMITS).expect("valid flags");
    args.paths = vec![kernel_file.to_path_buf()];
    let (results, errors) = syncscope::cli::results(&args);
    assert!(errors.is_empty(), "{errors:?}");
    results.into_iter().next().expect("one result").report
}

/// Everything a failure message shows of a case.
pub fn show_case(case: &Case) -> String {
    let mut out = format!(
        "seed {} (family {}, {}); rerun: {}\n",
        case.seed,
        case.family.name(),
        case.variant,
        rerun_command(case)
    );
    for (name, text) in &case.files {
        out.push_str(&format!("--- {name}\n"));
        for (i, l) in text.lines().enumerate() {
            out.push_str(&format!("{:3} | {l}\n", i + 1));
        }
    }
    out
}

/// Checks every claim the engine makes on `case`; failures and counts go
/// to `tally`.
pub fn check_case(case: &Case, root: &Path, tally: &mut Tally) {
    tally.cases += 1;
    tally.families.entry(case.family.name()).or_default()[0] += 1;
    let dir = write_case(case, root);
    let (file_name, text) = case.kernel_file();
    let file = dir.join(file_name);
    let report = engine_report(&file);
    let claims = claims(&report);
    if std::env::var_os("SYNCSCOPE_ORACLE_VERBOSE").is_some() {
        let statuses: Vec<String> = report
            .kernels
            .iter()
            .map(|k| format!("{} {}", k.name, k.status.as_str()))
            .collect();
        let findings: Vec<String> = report
            .findings
            .iter()
            .map(|f| format!("{} at line {}", f.kind.code(), f.span.start.line + 1))
            .collect();
        println!(
            "{}engine: {statuses:?} {findings:?}; truth: {:?}",
            show_case(case),
            case.truth
        );
    }
    let fail = |tally: &mut Tally, why: String| {
        let headline = why.lines().next().unwrap_or_default();
        tally.failures.push((
            format!(
                "seed {} [{}: {}] {headline}",
                case.seed,
                case.family.name(),
                case.variant
            ),
            format!("{why}\n{}", show_case(case)),
        ));
        tally.families.entry(case.family.name()).or_default()[2] += 1;
    };
    for (i, claim) in claims.iter().enumerate() {
        if claim.kernel() != case.kernel {
            continue;
        }
        tally.claims += 1;
        tally.families.entry(case.family.name()).or_default()[1] += 1;
        // The generator's truth first: it needs no simulation.
        match claim {
            Claim::Verified { .. } if case.truth.racy => fail(
                tally,
                format!(
                    "{}: the generator's truth is racy (some launch of the set races or diverges)",
                    claim.describe()
                ),
            ),
            Claim::Redundant { line, .. }
                if case
                    .truth
                    .barriers
                    .iter()
                    .any(|(l, needed)| l == line && *needed) =>
            {
                fail(
                    tally,
                    format!(
                        "{}: the generator's truth is that removing it races",
                        claim.describe()
                    ),
                )
            }
            Claim::Benign { lines, .. }
                if case
                    .truth
                    .same_value_writes
                    .iter()
                    .any(|(l, equal)| lines.contains(l) && !equal) =>
            {
                fail(
                    tally,
                    format!(
                        "{}: the generator's truth is that the values differ in machine arithmetic",
                        claim.describe()
                    ),
                )
            }
            _ => {}
        }
        let shapes = within_assumptions(&case.launches, text);
        let host_launches = within_assumptions_of_host_launches(&case.host_launches, text);
        let runs = if host_launches.is_empty() {
            runs_with_host_values(
                case.seed.wrapping_mul(1000).wrapping_add(i as u64),
                &shapes,
                &case.params,
                &case.host_values,
                case.sorted_inputs,
                RUNS_PER_CLAIM,
            )
        } else {
            runs_of_host_launches(
                case.seed.wrapping_mul(1000).wrapping_add(i as u64),
                &host_launches,
                &case.params,
                case.sorted_inputs,
                RUNS_PER_CLAIM,
            )
        };
        let edited;
        let subject_text = match claim {
            Claim::Verified { .. } => text.as_str(),
            Claim::Redundant { start, end, .. } => {
                edited = without(text, *start, *end);
                edited.as_str()
            }
            Claim::Benign { lines, .. } => {
                let subject = Subject {
                    file: &file,
                    text,
                    kernel: &case.kernel,
                    defines: &[],
                    include_dirs: &[],
                    assertions_hold: false,
                    only_benign_lines: true,
                };
                match race_free(&subject, &runs, lines, tally) {
                    Verdict::Holds => {}
                    Verdict::Unsupported(why) => *tally.unsupported.entry(why).or_default() += 1,
                    Verdict::Broken(run, out) => fail(
                        tally,
                        format!("{}: the simulator finds two different values written: {out:?}\n  under {}", claim.describe(), run.describe()),
                    ),
                }
                if let Some((probe_kernel, probe)) = &case.value_probe {
                    let probe_file = dir.join("probe.cu");
                    std::fs::write(&probe_file, probe).expect("write probe");
                    let mut params = case.params.clone();
                    params.push(Param {
                        name: "mismatch".into(),
                        kind: ParamKind::Pointer,
                    });
                    let probe_runs = runs_with_host_values(
                        case.seed ^ 0x5eed,
                        &shapes,
                        &params,
                        &case.host_values,
                        case.sorted_inputs,
                        RUNS_PER_CLAIM,
                    );
                    let subject = Subject {
                        file: &probe_file,
                        text: probe,
                        kernel: probe_kernel,
                        defines: &[],
                        include_dirs: &[],
                        assertions_hold: false,
                        only_benign_lines: false,
                    };
                    match values_differ(&subject, &probe_runs, tally) {
                        Ok(Some(run)) => fail(tally, format!("{}: the simulator's value probe saw two threads compute different values under {}", claim.describe(), run.describe())),
                        Ok(None) => {}
                        Err(why) => *tally.unsupported.entry(format!("value probe: {why}")).or_default() += 1,
                    }
                }
                continue;
            }
        };
        let subject = Subject {
            file: &file,
            text: subject_text,
            kernel: &case.kernel,
            defines: &[],
            include_dirs: &[],
            assertions_hold: matches!(claim, Claim::Verified { .. }),
            only_benign_lines: false,
        };
        match race_free(&subject, &runs, &[], tally) {
            Verdict::Holds => {}
            Verdict::Unsupported(why) => *tally.unsupported.entry(why).or_default() += 1,
            Verdict::Broken(run, out) => fail(
                tally,
                format!(
                    "{}: the simulator finds {out:?}\n  under {}",
                    claim.describe(),
                    run.describe()
                ),
            ),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
