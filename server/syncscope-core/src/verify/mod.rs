//! Verification: barrier intervals (`intervals`), SMT encoding and solving
//! (`smt`), per-kernel checks (`engine`), witness replay (`replay`) and
//! verified quick-fixes (`fixes`).

pub mod engine;
pub mod fixes;
pub mod intervals;
pub mod replay;
pub mod smt;
mod watchdog;

use crate::cache::QueryCache;
use crate::model::Kernel;
use crate::options::Options;
use crate::report::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Stack for analysis threads: lowering recurses on the syntax tree, and
/// hostile input nests deeply (the depth is also bounded in the front end).
const STACK: usize = 256 << 20;

pub fn analyze_file(
    text: &str,
    tree: &tree_sitter::Tree,
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
) -> FileReport {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("syncscope-analysis".into())
            .stack_size(STACK)
            .spawn_scoped(s, || analyze_file_here(text, tree, options, cache, cancel))
            .ok()
            .and_then(|h| h.join().ok())
            .unwrap_or_else(|| FileReport {
                findings: vec![Finding::new(
                    FindingKind::Unknown,
                    None,
                    Span::default(),
                    "unknown: internal error while analysing this file".into(),
                )],
                ..Default::default()
            })
    })
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

fn analyze_file_here(
    text: &str,
    tree: &tree_sitter::Tree,
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
) -> FileReport {
    let options = &crate::options::with_file_directives(text, options);
    let mut report = FileReport {
        findings: crate::syntax::syntax_errors(tree, text),
        ..Default::default()
    };
    let kernels: Vec<Kernel> = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::frontend::lower_file(text, tree, options)
    })) {
        Ok(k) => k,
        Err(p) => {
            report.findings.push(Finding::new(
                FindingKind::NotVerified,
                None,
                Span::default(),
                format!(
                    "not verified: internal error in the front end ({})",
                    panic_message(p)
                ),
            ));
            return report;
        }
    };
    let outcomes = verify_kernels(&kernels, options, cache, cancel);
    for (kernel, outcome) in kernels.iter().zip(outcomes) {
        let (mut findings, kreport, races, stats) = outcome;
        if options.compute_fixes && cancel.map(|c| !c.load(Ordering::Relaxed)).unwrap_or(true) {
            fixes::add_fixes(text, tree, kernel, &mut findings, &races, options, cache);
        }
        report.findings.extend(findings);
        report.kernels.push(kreport);
        report.stats += stats;
    }
    report
}

type Outcome = (Vec<Finding>, KernelReport, Vec<engine::RaceHit>, Stats);

/// Verifies kernels in parallel on worker threads (one Z3 context each).
pub fn verify_kernels(
    kernels: &[Kernel],
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
) -> Vec<Outcome> {
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(kernels.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<Outcome>>> = (0..kernels.len())
        .map(|_| std::sync::Mutex::new(None))
        .collect();
    std::thread::scope(|s| {
        for _ in 0..workers {
            let _ = std::thread::Builder::new()
                .stack_size(STACK / 4)
                .spawn_scoped(s, || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(kernel) = kernels.get(i) else { break };
                    let out = verify_one(kernel, options, cache, cancel);
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(out);
                    }
                });
        }
    });
    // A slot left empty (its worker could not start) is verified here.
    slots
        .into_iter()
        .map(|slot| slot.into_inner().ok().flatten())
        .zip(kernels)
        .map(|(r, k)| r.unwrap_or_else(|| verify_one(k, options, cache, cancel)))
        .collect()
}

/// Verifies one kernel; a panic becomes a finding, never a crash.
pub fn verify_one(
    kernel: &Kernel,
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
) -> Outcome {
    let start = std::time::Instant::now();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        engine::KernelVerifier::new(kernel, options, cache, cancel).run()
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
                },
            )
        }
        Err(p) => {
            let msg = panic_message(p);
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
            };
            (vec![f], report, Vec::new(), Stats::default())
        }
    }
}
