//! Verification of kernel models: barrier intervals (`intervals`), SMT
//! encoding and solving (`smt`, `watchdog`; `small_factors`: products
//! with a factor of few values as case splits; `product_orders`: products
//! one factor apart ordered like that factor, in a linear abstraction),
//! the per-kernel driver
//! (`engine`), the context its checks share (`context`) and the checks,
//! each a set of functions over that context (`divergence`, `precheck`,
//! `races` and its findings `race_findings`, `redundancy`, `assertions`,
//! `schedules`; `input_orders`: stated facts about input arrays in the
//! race queries; `param_bounds`: the thresholds on parameters a race
//! needs), witnesses (`witness`) replayed on the concrete interpreter
//! (`replay`) and checked to be executions that exist (`realisable`).
//! Imports go one way: the engine uses the checks, the checks use the
//! context, never back (`tests/architecture.rs` holds it).
//!
//! Must not parse or lower source text: it takes models and returns
//! findings; the file-level driver is `crate::analysis`.

mod affine;
mod assertions;
mod atomic_results;
mod budget;
mod collisions;
mod congruence;
mod context;
mod divergence;
mod engine;
pub(crate) mod input_orders;
pub(crate) mod intervals;
mod last_block;
mod linearize;
mod machine_values;
mod own_slots;
pub(crate) mod param_bounds;
mod pinned;
mod precheck;
mod product_orders;
mod race_findings;
pub(crate) mod races;
mod realisable;
mod redundancy;
pub(crate) mod replay;
mod schedules;
mod small_factors;
pub(crate) mod smt;
mod sweep;
mod undecided;
pub(crate) mod watchdog;
mod witness;
mod z3_solver;

use crate::cache::QueryCache;
use crate::model::Kernel;
use crate::options::Options;
use crate::report::*;

/// Stack for verification threads (the solver and the interpreter recurse
/// on expressions, whose depth the front end bounds).
const STACK: usize = 64 << 20;
use std::sync::atomic::AtomicBool;

type Outcome = (Vec<Finding>, KernelReport, Vec<races::RaceHit>, Stats);

/// Verifies kernels in parallel on worker threads (one Z3 context each),
/// in order: the first kernels first. `finish` completes each kernel's
/// findings (the driver's checks from source) before it is counted in
/// `progress` with its findings.
pub(crate) fn verify_kernels(
    kernels: &[&Kernel],
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
    progress: Option<&Progress>,
    finish: &(dyn Fn(&Kernel, &mut Vec<Finding>, &mut KernelReport) + Sync),
) -> Vec<Outcome> {
    crate::parallel::keep_solver_tables();
    let workers = crate::parallel::cores().min(kernels.len());
    let outcomes = crate::parallel::parallel_map(kernels, workers, STACK, |k| {
        // A kernel `not-verified` before any query shows why at once.
        if let Some(p) = progress.filter(|_| engine::decided_before_queries(k)) {
            p.kernel_known(&engine::model_notes(k));
        }
        let mut outcome = verify_one(k, options, cache, cancel);
        finish(k, &mut outcome.0, &mut outcome.1);
        if let Some(p) = progress {
            p.kernel_done(&outcome.0);
        }
        outcome
    });
    // The workers and their solver contexts are gone: what they freed goes
    // back to the system, not to the next file's peak.
    crate::parallel::release_freed_memory();
    outcomes
}

/// Verifies one kernel; a panic becomes a finding, never a crash.
pub(crate) fn verify_one(
    kernel: &Kernel,
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
) -> Outcome {
    let start = std::time::Instant::now();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // Each kernel in a Z3 context of its own (same input, same verdict
        // whatever the worker verified before).
        smt::verifying_one_kernel(|| engine::verify_kernel(kernel, options, cache, cancel))
    }));
    match result {
        Ok(outcome) => {
            let reused = outcome.report.queries_reused as u64;
            let run = outcome.report.queries as u64 - reused;
            (
                outcome.findings,
                outcome.report,
                outcome.races,
                Stats {
                    queries_run: run,
                    queries_reused: reused,
                    kernels_analysed: 1,
                    kernels_reused: 0,
                    kernels_over_budget: outcome.over_budget as u64,
                    access_pairs: outcome.counters.pairs,
                    access_pairs_without_z3: outcome.counters.pairs_without_z3,
                },
            )
        }
        Err(p) => {
            let msg = crate::parallel::panic_message(p);
            let f = Finding::new(
                FindingKind::NotVerified,
                Some(&kernel.name),
                kernel.span,
                format!(
                    "not verified: internal error while analysing `{}` ({msg})",
                    kernel.name
                ),
            );
            let report = KernelReport {
                name: kernel.name.clone(),
                span: kernel.span,
                status: KernelStatus::NotVerified,
                millis: start.elapsed().as_millis() as u64,
                queries: 0,
                queries_reused: 0,
                launch: None,
                launch_note: None,
                dims_taken_as_one: Vec::new(),
            };
            (vec![f], report, Vec::new(), Stats::default())
        }
    }
}

/// The thresholds on `kernel`'s parameters outside which the racing pairs
/// `hits` (of one finding, from [`verify_one`] of this kernel) cannot
/// race: candidates, each proved for its pair's query only
/// (`param_bounds`). `deadline` is the search's safety net (a query it
/// stops is undecided: the search keeps what it proved).
pub(crate) fn race_bounds(
    kernel: &Kernel,
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
    hits: &[&races::RaceHit],
    deadline: std::time::Instant,
) -> param_bounds::RaceBounds {
    let budget = budget::KernelBudget::for_rlimit(options.rlimit);
    let mut cx = context::KernelContext::new(kernel, options, cache, cancel, &budget);
    cx.config.deadline = Some(cx.config.deadline.map_or(deadline, |d| d.min(deadline)));
    param_bounds::race_bounds(&mut cx, hits)
}

/// Every kernel of the corpus (`tests/corpus`), lowered with the default
/// options: the models the verifier's own tests check properties on.
#[cfg(test)]
pub(crate) fn corpus_kernels() -> Vec<Kernel> {
    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("corpus folder")
            .map(|e| e.expect("entry").path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                files(&p, out);
            } else if p.extension().is_some_and(|e| e == "cu") {
                out.push(p);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut paths = Vec::new();
    files(&root, &mut paths);
    let mut kernels = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(&p).expect("corpus file");
        let tree = crate::syntax::parse(&text, None);
        kernels.extend(crate::frontend::lower_file(
            &text,
            &tree,
            &Options::default(),
        ));
    }
    assert!(kernels.len() > 100, "the corpus has its kernels");
    kernels
}
