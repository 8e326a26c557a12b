//! A definite race or divergence is an execution that exists: each such
//! finding's witness (its launch, its threads' parameters) is run from
//! source on the independent simulator (`syncscope-sim`, which shares no
//! code with the front end or the model) before it is reported.
//!
//! - The simulator runs the witness's launch and the race (an access on one
//!   of the finding's lines) or the divergence occurs: the finding stays
//!   definite, marked as reproduced.
//! - The simulator runs the witness's launch, to its end, under every input
//!   tried, and the race never occurs there: the model's witness is not an
//!   execution (an imprecision of the model: values read from memory, the
//!   results of atomics, a coordinate the model left free). The finding
//!   becomes a *possible* race or divergence (`unconfirmed`, naming why),
//!   and the kernel is `unknown` unless another finding is definite.
//! - The simulator cannot run the kernel (a construct it does not model, a
//!   launch too large to run on a CPU): the witness has been replayed on the
//!   model only, and the finding says so.
//!
//! Memory contents are not part of a witness (the model reads unknown
//! values), so a replay tries a few fills of the input buffers, scalar
//! parameters the witness leaves free at a few values, and two schedules
//! (one preempting threads after each atomic). Everything is deterministic:
//! same source, same tries, same answer.

use crate::model::Kernel;
use crate::options::Options;
use crate::report::*;
use std::collections::BTreeMap;
use std::path::Path;
use syncscope_sim::{Fill, Inputs, Launch, Order, Outcome, Scalar, SimOptions};

/// Threads a witness launch may have (the simulator runs every thread of a
/// launch on the CPU).
const MAX_THREADS: u64 = 1 << 16;
/// Operations one simulated run may execute, over all its threads.
const MAX_STEPS_PER_RUN: u64 = 10_000_000;
/// Operations a run may execute per thread of its launch (at least
/// [`MIN_STEPS_PER_RUN`] in all): generous for kernels that end (the
/// corpus's runs take tens to thousands per thread), and short for a run
/// whose inputs send a thread round a loop that never ends.
const STEPS_PER_THREAD: u64 = 10_000;
const MIN_STEPS_PER_RUN: u64 = 1_000_000;
/// Operations all the runs of one finding may execute together, and all
/// the runs of one kernel's findings: a kernel whose findings do not
/// reproduce costs at most this (about a second; runs are deterministic,
/// so which finding meets the limit is too).
const STEPS_PER_FINDING: u64 = 20_000_000;
const STEPS_PER_KERNEL: u64 = 50_000_000;

/// What running a finding's witness from source showed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Replayed {
    /// The race or divergence occurred.
    Reproduced,
    /// Every run ended without it.
    Absent { launch: Launch },
    /// No run could decide (the simulator does not model the kernel, the
    /// launch is too large, every run stopped early): why.
    NotRun(String),
}

/// Replays every race and divergence finding of one verified kernel and
/// downgrades those whose witness is not an execution. `text` is the
/// translation unit the kernel was lowered from (headers first).
/// The translation unit read by the simulator once for all its kernels
/// (on the first finding to replay), shared by the verification workers.
pub(crate) type UnitProgram = std::sync::OnceLock<Result<syncscope_sim::Prepared, String>>;

pub(crate) fn confirm(
    text: &str,
    unit: &UnitProgram,
    kernel: &Kernel,
    options: &Options,
    findings: &mut [Finding],
    report: &mut KernelReport,
) {
    // The simulator runs warps' threads independently: lock-step warps
    // (`--warp-sync`) are not its to judge.
    if options.warp_sync || !matches!(report.status, KernelStatus::Racy | KernelStatus::Divergent) {
        return;
    }
    let sim_options = SimOptions {
        defines: simulator_defines(options),
        include_dirs: Vec::new(),
        max_steps: MAX_STEPS_PER_RUN,
        order: Order::Forward,
        // The model assumes in-bounds accesses: a race it reports may sit
        // in a kernel that also goes out of bounds elsewhere.
        continue_out_of_bounds: true,
        race_lines: None,
        includes_expanded: true,
        blocks_run: None,
    };
    if !findings.iter().any(|f| {
        f.witness.is_some()
            && matches!(
                f.kind,
                FindingKind::DataRace | FindingKind::BarrierDivergence
            )
    }) {
        return;
    }
    // Read once for every kernel of the unit (preprocessing, syntax,
    // compilation); a kernel named with template arguments is read for
    // itself (the simulator instantiates it).
    let own;
    let prepared = if kernel.name.contains('<') {
        own = syncscope_sim::prepare(Path::new(""), text, &kernel.name, &sim_options);
        &own
    } else {
        unit.get_or_init(|| syncscope_sim::prepare(Path::new(""), text, "", &sim_options))
    };
    let mut kernel_steps = STEPS_PER_KERNEL;
    for f in findings.iter_mut() {
        let race = f.kind == FindingKind::DataRace;
        if !race && f.kind != FindingKind::BarrierDivergence {
            continue;
        }
        let Some(w) = &f.witness else { continue };
        let replayed = match prepared {
            Err(why) => Replayed::NotRun(format!("the simulator does not model {why}")),
            Ok(p) => replay(p, f, w, kernel, options, &sim_options, &mut kernel_steps),
        };
        match replayed {
            Replayed::Reproduced => f.source_replay = Some(SourceReplay::Reproduced),
            Replayed::NotRun(why) => {
                f.notes.push(format!(
                    "replayed on the model only, not from source: {why}"
                ));
                f.source_replay = Some(SourceReplay::NotRun { why });
            }
            Replayed::Absent { launch } => demote(f, &launch),
        }
    }
    let definite = findings.iter().any(|f| {
        matches!(
            f.kind,
            FindingKind::DataRace | FindingKind::BarrierDivergence
        )
    });
    if !definite {
        report.status = KernelStatus::Unknown;
    } else if report.status == KernelStatus::Divergent
        && !findings
            .iter()
            .any(|f| f.kind == FindingKind::BarrierDivergence)
    {
        report.status = KernelStatus::Racy;
    }
}

/// The device pass the model was lowered for, and the user's defines.
fn simulator_defines(options: &Options) -> Vec<(String, String)> {
    let mut defines = vec![("__CUDA_ARCH__".to_string(), options.cuda_arch.to_string())];
    defines.extend(options.defines.iter().cloned());
    defines
}

fn demote(f: &mut Finding, launch: &Launch) {
    let race = f.kind == FindingKind::DataRace;
    let witness = f
        .witness
        .as_ref()
        .map(Witness::describe)
        .unwrap_or_default();
    f.kind = FindingKind::Unconfirmed;
    f.severity = FindingKind::Unconfirmed.severity();
    let not_confirmed = format!(
        "not confirmed: run from source on the simulator with grid {:?} and block {:?}, \
         the kernel does not {}",
        launch.grid,
        launch.block,
        if race {
            "race on these lines"
        } else {
            "diverge"
        }
    );
    f.message = format!(
        "possible {}; not confirmed: the model's witness ({witness}) is not an execution: {}",
        f.message,
        not_confirmed.trim_start_matches("not confirmed: ")
    );
    // The human format prints the headline and notes, not the message.
    f.headline = f.headline.take().map(|h| format!("possible {h}"));
    f.notes.push(not_confirmed);
    f.fixes.clear();
    f.source_replay = Some(SourceReplay::Absent);
}

/// The witness's launch (and the blocks of it to run, when too large to
/// run whole).
fn witness_launch(
    w: &Witness,
    kernel: &str,
    options: &Options,
) -> Result<(Launch, Option<[u32; 3]>), String> {
    let (block, grid) = options.launch_for(kernel);
    match w.simulated_launch(block, grid, MAX_THREADS) {
        Ok(l) => Ok((
            Launch {
                grid: l.grid,
                block: l.block,
            },
            l.blocks_run,
        )),
        Err(l) => Err(format!(
            "the witness's launch (grid {:?}, block {:?}) is too large to simulate",
            l.grid, l.block
        )),
    }
}

fn replay(
    prepared: &syncscope_sim::Prepared,
    f: &Finding,
    w: &Witness,
    kernel: &Kernel,
    options: &Options,
    base: &SimOptions,
    kernel_steps: &mut u64,
) -> Replayed {
    let race = f.kind == FindingKind::DataRace;
    let (launch, blocks_run) = match witness_launch(w, &kernel.name, options) {
        Ok(l) => l,
        Err(why) => return Replayed::NotRun(why),
    };
    let params = prepared.scalar_params(&kernel.name);
    let scalar = |floating: bool, v: i64| {
        if floating {
            Scalar::Float(v as f64)
        } else {
            Scalar::Int(v)
        }
    };
    let given: BTreeMap<String, Scalar> = params
        .iter()
        .filter_map(|p| Some((p.name.clone(), scalar(p.floating, w.value(&p.name)?))))
        .collect();
    let free: Vec<_> = params
        .iter()
        .filter(|p| !given.contains_key(&p.name))
        .collect();
    // A parameter the witness leaves free did not matter to the solver: 0
    // (the simulator's default) and a few small and boundary values.
    let free_values: &[i64] = if free.is_empty() {
        &[0]
    } else {
        &[0, 1, 3, 4, 64, -1]
    };
    let fills = [
        Fill::Zero,
        Fill::Index,
        Fill::Random(1),
        Fill::Constant(1.0),
        Fill::Constant(-1.0),
        Fill::Alternating(-1, 0),
        // NaN tests (`v != v`) take their branch.
        Fill::Constant(f64::NAN),
    ];
    // Preempting threads after each atomic lets two threads each win one
    // of two elections; the reverse order lets a later thread's atomic
    // come first.
    let orders = [Order::Forward, Order::Interleaved(1), Order::Reverse];
    let threads: u64 = blocks_run
        .unwrap_or(launch.grid)
        .iter()
        .chain(launch.block.iter())
        .map(|&x| u64::from(x))
        .product();
    // Every thread may index its own stretch of a buffer (`gid * 33 + k`).
    // Small buffers first (a run allocates and fills every buffer: most
    // races reproduce on the first try), then large ones, whose contents
    // reach indices the small ones do not (values used as indices).
    let small = (threads * 40).clamp(1 << 12, 1 << 21) as usize;
    let large = (threads * 40).clamp(1 << 16, 1 << 21) as usize;
    let sizes: &[usize] = if small < large {
        &[small, large]
    } else {
        &[large]
    };
    let mut lines = vec![f.span.start.line as usize + 1];
    lines.extend(f.related.iter().map(|r| r.span.start.line as usize + 1));
    lines.extend(f.pairs.iter().flat_map(|p| {
        [
            p.first.start.line as usize + 1,
            p.second.start.line as usize + 1,
        ]
    }));
    let opts = SimOptions {
        race_lines: Some(if race { lines } else { Vec::new() }),
        blocks_run,
        ..base.clone()
    };
    let per_run = threads
        .saturating_mul(STEPS_PER_THREAD)
        .clamp(MIN_STEPS_PER_RUN, MAX_STEPS_PER_RUN);
    let mut steps_left = STEPS_PER_FINDING.min(*kernel_steps);
    let mut completed = false;
    let mut stopped = None;
    let mut tries = Vec::new();
    for &len in sizes {
        for &v in free_values {
            for fill in fills {
                for order in orders {
                    tries.push((len, v, fill, order));
                }
            }
        }
    }
    for (buffer_len, v, fill, order) in tries {
        if steps_left == 0 {
            // Out of budget before every input was tried: not a proof
            // that the race is absent.
            return Replayed::NotRun(
                "the runs of the witness's launch took longer than allowed".into(),
            );
        }
        let mut scalars = given.clone();
        for p in &free {
            scalars.insert(p.name.clone(), scalar(p.floating, v));
        }
        let inputs = Inputs {
            scalars,
            buffer_len,
            fill,
        };
        let opts = SimOptions {
            order,
            max_steps: steps_left.min(per_run),
            ..opts.clone()
        };
        let (outcome, steps) = prepared.run_kernel_counted(&kernel.name, &launch, &inputs, &opts);
        steps_left = steps_left.saturating_sub(steps.max(1));
        *kernel_steps = kernel_steps.saturating_sub(steps.max(1));
        match outcome {
            Outcome::Race(r) if race => {
                let on_lines = opts
                    .race_lines
                    .as_ref()
                    .is_some_and(|l| l.contains(&r.a.line) || l.contains(&r.b.line));
                if on_lines {
                    return Replayed::Reproduced;
                }
                completed = true;
            }
            Outcome::Divergence { .. } if !race => return Replayed::Reproduced,
            Outcome::Unsupported(why) => {
                return Replayed::NotRun(format!("the simulator does not model {why}"))
            }
            // Ran to its end (past races on other lines).
            Outcome::Clean | Outcome::Race(_) => completed = true,
            // An access was out of the simulated buffers and skipped: the
            // run says nothing about the race (the model assumes in-bounds
            // accesses; the witness's cell may be one of those skipped).
            Outcome::OutOfBounds { .. } => stopped = Some("goes out of bounds"),
            Outcome::Divergence { .. } => stopped = Some("diverges before"),
            Outcome::StepLimit => stopped = Some("ran past the simulator's step limit"),
            Outcome::Vacuous => stopped = Some("breaks a precondition (`__requires`)"),
            Outcome::SignedOverflow { .. } => stopped = Some("overflows a signed integer"),
            Outcome::AssertionFailed { .. } => stopped = Some("fails an assertion"),
        }
    }
    if completed {
        Replayed::Absent { launch }
    } else {
        Replayed::NotRun(format!(
            "every run of the witness's launch {}",
            stopped.unwrap_or("took too long")
        ))
    }
}
