//! The simulator as the oracle of the engine's claims (issue 26).
//!
//! `generated_kernels`: kernels generated from real idioms
//! (`oracle/generate.rs`), each checked as `syncscope check` checks it (in
//! its project folder, with its host file when it has one); every
//! `verified`, `redundant-barrier` and `benign-race` claim is checked
//! against the generator's truth and against the simulator at many small
//! launches of the launches the kernel can run under, with boundary inputs.
//!
//! `corpus_claims`: the same for every claim of the corpus, and every
//! racy corpus kernel's witness must reproduce on the simulator.
//!
//! Environment:
//! - `SYNCSCOPE_ORACLE_SEED=S` checks the one generated case of seed S
//!   (every failure prints its seed and this command);
//!   `SYNCSCOPE_ORACLE_FAMILY=NAME` draws every case from one family;
//!   `SYNCSCOPE_ORACLE_VERBOSE=1` prints each case, the engine's verdicts
//!   and the generator's truth.
//! - `SYNCSCOPE_SOAK_CASES=N` checks N generated cases from
//!   `SYNCSCOPE_SOAK_START` (default 1000000) instead of the fixed CI set;
//!   `SYNCSCOPE_SOAK_SECONDS=T` keeps generating new seeds until T seconds
//!   have passed (a soak; best with `--release`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use syncscope_core::{FindingKind, KernelStatus};
use syncscope_sim::{Fill, Inputs, Launch, Order, Outcome, Scalar, SimOptions};
use syncscope_tests::oracle::check::{self, Claim, Subject, Tally, Verdict};
use syncscope_tests::oracle::generate::{self, Dim, LaunchShape, ParamKind};
use syncscope_tests::oracle::signature;
use syncscope_tests::*;

/// Generated cases per CI run (seeds `1..=CI_CASES`): enough for every
/// family several times over, within a minute of a debug build.
const CI_CASES: u64 = 110;

/// Generated cases per family per CI run, beside the mixed ones (seeds
/// `1..=CI_CASES_PER_FAMILY` of each family).
const CI_CASES_PER_FAMILY: u64 = 12;

/// The families whose trap is one draw among several independent ones
/// (an entry or an update of a host loop, a fall-through among the
/// labels, a site the options contradict) get twice the seeds: with 12, a
/// rule undone could go unseen.
fn ci_cases_of(family: generate::Family) -> u64 {
    use generate::Family::*;
    match family {
        LoopRelations | SwitchCases | OptionSites | HostWhileTests => 2 * CI_CASES_PER_FAMILY,
        _ => CI_CASES_PER_FAMILY,
    }
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

fn temp_root(suite: &str) -> PathBuf {
    let root =
        std::env::temp_dir().join(format!("syncscope-oracle-{}-{suite}", std::process::id()));
    std::fs::create_dir_all(&root).expect("temp folder");
    root
}

#[test]
fn generated_kernels() {
    let root = temp_root("generated");
    let mut tally = Tally::default();
    let start = std::time::Instant::now();
    let family = std::env::var("SYNCSCOPE_ORACLE_FAMILY").ok().map(|name| {
        generate::family_named(&name).unwrap_or_else(|| {
            panic!(
                "no family `{name}`; the families: {:?}",
                generate::FAMILIES.map(|f| f.name())
            )
        })
    });
    let case = |seed| match family {
        Some(f) => generate::generate_in(f, seed),
        None => generate::generate(seed),
    };
    if let Some(seed) = env_u64("SYNCSCOPE_ORACLE_SEED") {
        check::check_case(&case(seed), &root, &mut tally);
    } else if env_u64("SYNCSCOPE_SOAK_CASES").is_some()
        || env_u64("SYNCSCOPE_SOAK_SECONDS").is_some()
    {
        let first = env_u64("SYNCSCOPE_SOAK_START").unwrap_or(1_000_000);
        let cases = env_u64("SYNCSCOPE_SOAK_CASES").unwrap_or(u64::MAX);
        let seconds = env_u64("SYNCSCOPE_SOAK_SECONDS");
        for seed in first..first.saturating_add(cases) {
            if seconds.is_some_and(|s| start.elapsed().as_secs() >= s) {
                break;
            }
            check::check_case(&case(seed), &root, &mut tally);
        }
    } else {
        let mut cases: Vec<(Option<generate::Family>, u64)> =
            (1..=CI_CASES).map(|seed| (family, seed)).collect();
        // And each family's own first seeds: a family drawn rarely by the
        // mixed seeds (the host launches, whose rarer launch ways are the
        // ones that break a claim) still gets its variants tried.
        if family.is_none() {
            for f in generate::FAMILIES {
                cases.extend((1..=ci_cases_of(f)).map(|seed| (Some(f), seed)));
            }
        }
        tally.absorb(check_on_every_core(&cases, &root));
    }
    let _ = std::fs::remove_dir_all(&root);
    println!("{}", tally.summary("generated"));
    println!("{}", tally.per_family());
    if !tally.unsupported.is_empty() {
        println!(
            "unsupported by the simulator:\n{}",
            tally.unsupported_reasons()
        );
    }
    assert!(
        tally.failures.is_empty(),
        "{} false claims:\n{}\n\nthe first ones in full:\n{}",
        tally.failures.len(),
        tally
            .failures
            .iter()
            .map(|(line, _)| line.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        tally
            .failures
            .iter()
            .take(6)
            .map(|(_, d)| d.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Checks the cases (`None`: the seed's own family) on every core, each
/// in a folder of its own (the mixed and the per-family seeds share
/// numbers), and tallies them in the cases' order.
fn check_on_every_core(cases: &[(Option<generate::Family>, u64)], root: &Path) -> Tally {
    let tallies = on_every_core(cases, |i, &(family, seed)| {
        let case = match family {
            Some(f) => generate::generate_in(f, seed),
            None => generate::generate(seed),
        };
        let mut tally = Tally::default();
        check::check_case(&case, &root.join(format!("case-{i}")), &mut tally);
        tally
    });
    let mut tally = Tally::default();
    for t in tallies {
        tally.absorb(t);
    }
    tally
}

/// The launches a corpus kernel can run under: its fixed sizes, else any.
fn corpus_shape(block: Option<[u32; 3]>, grid: Option<[u32; 3]>) -> LaunchShape {
    let dims = |d: Option<[u32; 3]>| match d {
        Some(v) => v.map(|x| Dim::OneOf(vec![x])),
        None => [Dim::Any, Dim::Any, Dim::Any],
    };
    LaunchShape {
        grid: dims(grid),
        block: dims(block),
    }
}

/// How a racy kernel's witness fared on the simulator.
#[derive(Default)]
struct Witnesses {
    reproduced: usize,
    /// The simulator found a race too, between other lines (it stops at
    /// the first race of the run).
    race_elsewhere: usize,
    unsupported: BTreeMap<String, usize>,
    too_large: usize,
    /// The file (relative to the corpus), the finding's line, and what
    /// was tried.
    not_reproduced: Vec<(String, usize, String)>,
    /// Findings the engine itself reported as `unconfirmed`.
    unconfirmed: usize,
}

impl Witnesses {
    fn absorb(&mut self, other: Witnesses) {
        self.reproduced += other.reproduced;
        self.race_elsewhere += other.race_elsewhere;
        for (why, n) in other.unsupported {
            *self.unsupported.entry(why).or_default() += n;
        }
        self.too_large += other.too_large;
        self.not_reproduced.extend(other.not_reproduced);
        self.unconfirmed += other.unconfirmed;
    }
}

/// Threads a witness launch may have before only the blocks up to the
/// witness's are run (`SimOptions::blocks_run`: the others never run, one
/// schedule of the same launch, `gridDim` unchanged).
const WITNESS_THREADS: u64 = 65536;

fn witness_launch(
    w: &syncscope_core::Witness,
    block: Option<[u32; 3]>,
    grid: Option<[u32; 3]>,
) -> Option<(Launch, Option<[u32; 3]>)> {
    let l = w.simulated_launch(block, grid, WITNESS_THREADS).ok()?;
    Some((
        Launch {
            grid: l.grid,
            block: l.block,
        },
        l.blocks_run,
    ))
}

/// Checks every claim and replays every witness of one corpus file: its
/// tally, its witnesses, and whether it was skipped (lockstep warps).
fn check_corpus_file(index: usize, path: &Path, verbose: bool) -> (Tally, Witnesses, bool) {
    let mut tally = Tally::default();
    let mut witnesses = Witnesses::default();
    let started = std::time::Instant::now();
    let text = std::fs::read_to_string(path).expect("corpus file is UTF-8");
    let e = expectations(&text);
    let base = options_for(&e);
    let report = syncscope_core::analyze_source(&text, &base);
    let options = syncscope_core::options::with_file_directives(&text, &base);
    tally.cases += 1;
    if options.warp_sync {
        // The simulator runs threads independently (Volta and later);
        // a claim made for lockstep warps is not its to judge.
        return (tally, witnesses, true);
    }
    let include_dirs = vec![path.parent().unwrap_or(Path::new(".")).to_path_buf()];
    let kernels = signature::kernels(&text);
    let params_of = |k: &str| {
        kernels
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, p)| p.clone())
            .unwrap_or_default()
    };
    let claims = check::claims(&report);
    for (i, claim) in claims.iter().enumerate() {
        let kernel = claim.kernel();
        let (block, grid) = options.launch_for(kernel);
        let params = params_of(kernel);
        let shapes = check::within_assumptions(
            &[corpus_shape(block, grid)],
            &signature::without_other_kernels(&text, kernel),
        );
        let runs = check::runs(
            (index as u64 + 1) << 16 | i as u64,
            &shapes,
            &params,
            check::RUNS_PER_CLAIM,
        );
        // A benign claim speaks of its own pairs only: another benign
        // pair's line racing with one of its lines is not its claim.
        let benign = match claim {
            Claim::Benign { lines, .. } => lines.clone(),
            _ => check::benign_lines(&claims, kernel),
        };
        let edited;
        let subject_text = match claim {
            Claim::Verified { .. } | Claim::Benign { .. } => text.as_str(),
            Claim::Redundant { start, end, .. } => {
                edited = check::without(&text, *start, *end);
                edited.as_str()
            }
        };
        tally.claims += 1;
        let subject = Subject {
            file: path,
            text: subject_text,
            kernel,
            defines: &options.defines,
            include_dirs: &include_dirs,
            assertions_hold: matches!(claim, Claim::Verified { .. }),
            // A benign claim: its writes must store one value.
            only_benign_lines: matches!(claim, Claim::Benign { .. }),
        };
        match check::race_free(&subject, &runs, &benign, &mut tally) {
            Verdict::Holds => {}
            Verdict::Unsupported(why) => *tally.unsupported.entry(why).or_default() += 1,
            Verdict::Broken(run, out) => {
                let line = format!("{}: {}", path.display(), claim.describe());
                let details = format!(
                    "{line}: the simulator finds {out:?}\n  under {}",
                    run.describe()
                );
                tally.failures.push((line, details));
            }
        }
    }
    witnesses.unconfirmed += report
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::Unconfirmed)
        .count();
    for f in &report.findings {
        let race = f.kind == FindingKind::DataRace;
        if !race && f.kind != FindingKind::BarrierDivergence {
            continue;
        }
        let (Some(kernel), Some(w)) = (&f.kernel, &f.witness) else {
            continue;
        };
        let status = report
            .kernels
            .iter()
            .find(|k| &k.name == kernel)
            .map(|k| k.status);
        if !matches!(status, Some(KernelStatus::Racy | KernelStatus::Divergent)) {
            continue;
        }
        let at = format!("{}:{} ({kernel})", path.display(), f.span.start.line + 1);
        let (block, grid) = options.launch_for(kernel);
        let Some((launch, blocks_run)) = witness_launch(w, block, grid) else {
            witnesses.too_large += 1;
            continue;
        };
        let params = params_of(kernel);
        let scalars: BTreeMap<String, Scalar> = params
            .iter()
            .filter(|p| p.kind != ParamKind::Pointer)
            .filter_map(|p| {
                let v = w.value(&p.name)?;
                Some((
                    p.name.clone(),
                    if p.kind == ParamKind::Float {
                        Scalar::Float(v as f64)
                    } else {
                        Scalar::Int(v)
                    },
                ))
            })
            .collect();
        let mut lines = vec![f.span.start.line as usize + 1];
        lines.extend(f.related.iter().map(|r| r.span.start.line as usize + 1));
        lines.extend(f.pairs.iter().flat_map(|p| {
            [
                p.first.start.line as usize + 1,
                p.second.start.line as usize + 1,
            ]
        }));
        let mut result = None;
        let mut unsupported = None;
        let mut stopped = None;
        // Large launches get two tries, small ones eight.
        let threads = blocks_run
            .unwrap_or(launch.grid)
            .iter()
            .chain(launch.block.iter())
            .map(|&x| u64::from(x))
            .product::<u64>();
        let large = threads > 1024;
        // Every thread may index its own stretch of a buffer (`gid * 33 +
        // k`): buffers large enough for that keep the witness in bounds.
        let buffer_len = (threads * 40).clamp(1 << 16, 1 << 21) as usize;
        let fills: &[Fill] = if large {
            &[
                Fill::Zero,
                Fill::Index,
                Fill::Constant(-1.0),
                Fill::Alternating(-1, 0),
            ]
        } else {
            &[
                Fill::Zero,
                Fill::Index,
                Fill::Random(1),
                Fill::Constant(1.0),
                Fill::Constant(-1.0),
                Fill::Alternating(-1, 0),
                // NaN tests (`v != v`, `v - v != 0`) take their branch.
                Fill::Constant(f64::NAN),
            ]
        };
        // Interleaved: a thread is preempted after each atomic, so two
        // threads can each win one of two elections.
        let orders: &[Order] = if large {
            &[Order::Forward, Order::Interleaved(1)]
        } else {
            &[Order::Forward, Order::Reverse, Order::Interleaved(1)]
        };
        // A parameter the witness leaves free (it did not matter to the
        // solver's model, or the witness omits it) is tried at 0 (the
        // simulator's default) and at a few small and boundary values.
        let free: Vec<_> = params
            .iter()
            .filter(|p| p.kind != ParamKind::Pointer && !scalars.contains_key(&p.name))
            .collect();
        let free_values: &[i64] = if free.is_empty() {
            &[0]
        } else {
            &[0, 1, 3, 4, 64, -1]
        };
        'tries: for (&v, &fill, &order) in free_values
            .iter()
            .flat_map(|v| fills.iter().map(move |f| (v, f)))
            .flat_map(|(v, f)| orders.iter().map(move |o| (v, f, o)))
        {
            {
                let mut scalars = scalars.clone();
                for p in &free {
                    let value = if p.kind == ParamKind::Float {
                        Scalar::Float(v as f64)
                    } else {
                        Scalar::Int(v)
                    };
                    scalars.insert(p.name.clone(), value);
                }
                let inputs = Inputs {
                    scalars,
                    buffer_len,
                    fill,
                };
                let opts = SimOptions {
                    defines: options.defines.clone(),
                    include_dirs: include_dirs.clone(),
                    max_steps: 20_000_000,
                    order,
                    // The engine assumes in-bounds accesses: a race it
                    // reports may sit in a kernel that also goes out of
                    // bounds elsewhere (`s[tid + off]` with `off = -1`).
                    // The simulator then skips those accesses; a race it
                    // finds is between two in-bounds ones.
                    continue_out_of_bounds: true,
                    // Another race of the kernel does not hide this one
                    // (a divergence's run goes on past every race).
                    race_lines: Some(if race { lines.clone() } else { Vec::new() }),
                    includes_expanded: false,
                    blocks_run,
                };
                tally.simulations += 1;
                match syncscope_sim::simulate(path, &text, kernel, &launch, &inputs, &opts) {
                    Outcome::Race(r) if race => {
                        let exact = lines.contains(&r.a.line) || lines.contains(&r.b.line);
                        result = Some(exact);
                        if exact {
                            break 'tries;
                        }
                    }
                    Outcome::Divergence { .. } if !race => {
                        result = Some(true);
                        break 'tries;
                    }
                    // The run stops at its first race, before the barrier
                    // the divergence is about.
                    Outcome::Race(_) => {
                        result = Some(false);
                        break 'tries;
                    }
                    Outcome::Unsupported(why) => {
                        unsupported = Some(why);
                        break 'tries;
                    }
                    // The run stopped before it could race (the engine
                    // assumes in-bounds accesses).
                    Outcome::OutOfBounds { .. } => stopped = Some("out of bounds"),
                    Outcome::StepLimit => stopped = Some("step limit"),
                    Outcome::Vacuous => stopped = Some("vacuous: the witness breaks a __requires"),
                    Outcome::SignedOverflow { .. } => stopped = Some("signed overflow"),
                    _ => {}
                }
            }
        }
        match (result, unsupported) {
            (Some(true), _) => witnesses.reproduced += 1,
            (Some(false), _) => witnesses.race_elsewhere += 1,
            (None, Some(why)) => *witnesses.unsupported.entry(why).or_default() += 1,
            (None, None) => witnesses.not_reproduced.push((
                corpus_relative(path),
                f.span.start.line as usize + 1,
                format!(
                    "{at}: {} {} under grid {:?} block {:?}{}",
                    f.kind.code(),
                    w.describe(),
                    launch.grid,
                    launch.block,
                    stopped
                        .map(|s| format!(" (a run stopped: {s})"))
                        .unwrap_or_default()
                ),
            )),
        }
    }
    if verbose {
        println!(
            "{}: {:.1} s, {} simulations",
            path.display(),
            started.elapsed().as_secs_f64(),
            tally.simulations
        );
    }
    (tally, witnesses, false)
}

#[test]
fn corpus_claims() {
    let mut tally = Tally::default();
    let mut witnesses = Witnesses::default();
    let mut lockstep_skipped = 0;
    let verbose = std::env::var_os("SYNCSCOPE_ORACLE_VERBOSE").is_some();
    // The files are independent: checked on every core, merged in order.
    let files = cu_files(&corpus_dir());
    let results = on_every_core(&files, |i, path| check_corpus_file(i, path, verbose));
    for (t, w, lockstep) in results {
        tally.absorb(t);
        witnesses.absorb(w);
        lockstep_skipped += usize::from(lockstep);
    }
    println!("{}", tally.summary("corpus"));
    println!(
        "corpus witnesses: {} reproduced, {} with a race elsewhere, {} unsupported, {} too large, {} not reproduced; {} files for lockstep warps not simulated",
        witnesses.reproduced,
        witnesses.race_elsewhere,
        witnesses.unsupported.values().sum::<usize>(),
        witnesses.too_large,
        witnesses.not_reproduced.len(),
        lockstep_skipped
    );
    let mut reasons = tally.unsupported.clone();
    for (r, n) in &witnesses.unsupported {
        *reasons.entry(format!("witness: {r}")).or_default() += n;
    }
    if !reasons.is_empty() {
        let t = Tally {
            unsupported: reasons,
            ..Tally::default()
        };
        println!("unsupported by the simulator:\n{}", t.unsupported_reasons());
    }
    // The product reports a race or divergence as definite only when its
    // witness ran from source (`analysis/source_replay.rs`); the others are
    // `unconfirmed`. Every definite one must reproduce here too.
    println!(
        "corpus findings the engine left unconfirmed (their witness did not run from source): {}",
        witnesses.unconfirmed
    );
    let mut problems: Vec<String> = tally.failures.iter().map(|(_, d)| d.clone()).collect();
    problems.extend(
        witnesses
            .not_reproduced
            .iter()
            .map(|(_, _, w)| format!("witness not reproduced: {w}")),
    );
    assert!(
        problems.is_empty(),
        "{} false claims, {} witnesses of definite findings not reproduced:\n{}",
        tally.failures.len(),
        witnesses.not_reproduced.len(),
        problems.join("\n")
    );
}

/// `path` relative to the corpus folder, with `/` separators.
fn corpus_relative(path: &Path) -> String {
    let dir = corpus_dir();
    path.strip_prefix(&dir)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}
