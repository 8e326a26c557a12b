//! The corpus as the oracle's subject: every claim of every corpus file
//! (`verified`, `redundant-barrier`, `benign-race`) checked against the
//! simulator at small launches of the file's launch set, and every definite
//! race or divergence replayed at its witness. `tests/corpus.rs` runs it on
//! the corpus analysis it shares with its other tests.

use super::check::{self, Claim, Subject, Tally, Verdict};
use super::generate::{Dim, LaunchShape, ParamKind};
use super::signature;
use crate::{corpus_dir, expectations, on_every_core, options_for};
use std::collections::BTreeMap;
use std::path::Path;
use syncscope_core::{FileReport, FindingKind, KernelStatus};
use syncscope_sim::{Fill, Inputs, Launch, Order, Outcome, Scalar, SimOptions};

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
pub struct Witnesses {
    pub reproduced: usize,
    /// The simulator found a race too, between other lines (it stops at
    /// the first race of the run).
    pub race_elsewhere: usize,
    pub unsupported: BTreeMap<String, usize>,
    pub too_large: usize,
    /// The file (relative to the corpus), the finding's line, and what
    /// was tried.
    pub not_reproduced: Vec<(String, usize, String)>,
    /// Findings the engine itself reported as `unconfirmed`.
    pub unconfirmed: usize,
}

impl Witnesses {
    pub fn absorb(&mut self, other: Witnesses) {
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
pub fn check_corpus_file(
    index: usize,
    path: &Path,
    text: &str,
    report: &FileReport,
    verbose: bool,
) -> (Tally, Witnesses, bool) {
    let mut tally = Tally::default();
    let mut witnesses = Witnesses::default();
    let started = std::time::Instant::now();
    let base = options_for(&expectations(text));
    let options = syncscope_core::options::with_file_directives(text, &base);
    tally.cases += 1;
    if options.warp_sync {
        // The simulator runs threads independently (Volta and later);
        // a claim made for lockstep warps is not its to judge.
        return (tally, witnesses, true);
    }
    let include_dirs = vec![path.parent().unwrap_or(Path::new(".")).to_path_buf()];
    let kernels = signature::kernels(text);
    let params_of = |k: &str| {
        kernels
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, p)| p.clone())
            .unwrap_or_default()
    };
    let claims = check::claims(report);
    for (i, claim) in claims.iter().enumerate() {
        let kernel = claim.kernel();
        let (block, grid) = options.launch_for(kernel);
        let params = params_of(kernel);
        let shapes = check::within_assumptions(
            &[corpus_shape(block, grid)],
            &signature::without_other_kernels(text, kernel),
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
            Claim::Verified { .. } | Claim::Benign { .. } => text,
            Claim::Redundant { start, end, .. } => {
                edited = check::without(text, *start, *end);
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
                match syncscope_sim::simulate(path, text, kernel, &launch, &inputs, &opts) {
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

/// Checks every claim and replays every definite finding of the analysed
/// corpus files (path, text, report); panics with every false claim and
/// every witness that does not reproduce.
pub fn check_corpus_claims(files: &[(&Path, &str, &FileReport)]) {
    let mut tally = Tally::default();
    let mut witnesses = Witnesses::default();
    let mut lockstep_skipped = 0;
    let verbose = std::env::var_os("SYNCSCOPE_ORACLE_VERBOSE").is_some();
    // The files are independent: checked on every core, merged in order.
    let results = on_every_core(files, |i, &(path, text, report)| {
        check_corpus_file(i, path, text, report, verbose)
    });
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
pub fn corpus_relative(path: &Path) -> String {
    let dir = corpus_dir();
    path.strip_prefix(&dir)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}
