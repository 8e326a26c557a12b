//! The per-kernel driver: builds the kernel's shared context (`context`),
//! runs the checks over it in sequence (divergence, races, assertions,
//! redundancy, schedules) and turns their outcomes into the kernel's
//! findings and status. Must not hold a check, nor anything a check uses:
//! that lives in `context`, so no module of `verify` but `mod.rs` imports
//! this one.

use super::budget::KernelBudget;
use super::context::KernelContext;
use super::races::RaceHit;
use super::smt::Counters;
use crate::cache::QueryCache;
use crate::model::Kernel;
use crate::options::Options;
use crate::report::*;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

pub(crate) struct KernelOutcome {
    pub findings: Vec<Finding>,
    pub report: KernelReport,
    pub races: Vec<RaceHit>,
    /// The kernel's time budget ran out: the result is incomplete.
    pub over_budget: bool,
    pub counters: Counters,
}

/// Verifies one kernel: every check in order, each adding its findings.
/// The order matters: replay ignores the barriers the divergence check
/// found divergent, and only a kernel that verifies so far can have a
/// redundant barrier.
pub(crate) fn verify_kernel(
    kernel: &Kernel,
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
) -> KernelOutcome {
    let start = Instant::now();
    let k = kernel;
    // The model's own notes come before any query: a part it cannot
    // represent makes the kernel `not-verified` whatever the queries
    // answer, so its queries only look, under a small allowance, for a
    // definite race or divergence that would make the verdict worse.
    let mut findings = model_notes(k);
    let decided = decided_before_queries(k);
    let mut budget = if decided {
        KernelBudget::for_decided_kernel(options.rlimit)
    } else {
        KernelBudget::for_rlimit(options.rlimit)
    };
    if options.racy_under_earlier_launch.contains(&k.name) {
        budget = budget.stopping_at_first_race();
    }
    let mut cx = KernelContext::new(kernel, options, cache, cancel, &budget);
    let barriers = cx.check_barriers();
    let after_barriers = budget.spent();
    findings.extend(barriers.findings);
    let mut races = cx.find_races(None);
    let after_races = budget.spent();
    let race_search_stopped = budget.end_race_search();
    findings.extend(cx.last_block_notes());
    findings.extend(cx.race_report(&mut races));
    if race_search_stopped {
        let message = match budget.after_race() {
            0 => format!(
                "note: `{}` races under an earlier launch; under this one the search stopped at its first race, so other pairs of accesses may race here too (fix the races shown and check again)",
                k.name
            ),
            units => format!(
                "note: `{}` has a data race; the search for further races stopped {units} Z3 resource units after the first, so other pairs of accesses may race too (fix the races shown and check again)",
                k.name
            ),
        };
        findings.push(Finding::new(
            FindingKind::Note,
            Some(&k.name),
            k.span,
            message,
        ));
    }
    findings.extend(cx.check_assertions());
    let after_assertions = budget.spent();
    let redundant = cx.redundant_barriers(&findings, &barriers.unknown);
    let after_redundancy = budget.spent();
    findings.extend(redundant);
    findings.extend(cx.assumption_note());
    if options.deterministic_for(&k.name) && !cx.cancelled() {
        findings.extend(cx.check_schedules());
    }
    // The allowance of a kernel decided before its queries ran out: the
    // verdict stands as it was decided, and the kernel is not one at its
    // budget (nothing it could have proved was left unproved).
    let allowance_spent = decided && budget.spent_all();
    let over_budget = cx.config.out_of_budget() && !allowance_spent;
    if over_budget || cx.cancelled() {
        // An incomplete run proves nothing, so it claims no redundancy.
        findings.retain(|f| f.kind != FindingKind::RedundantBarrier);
    }
    if allowance_spent {
        findings.push(Finding::new(
            FindingKind::Note,
            Some(&k.name),
            k.span,
            format!(
                "note: `{}` is not-verified before any query (a part of it the model cannot represent); the search for a definite race or divergence, which would make the verdict worse, stopped after its allowance of {} Z3 resource units",
                k.name,
                budget.limit()
            ),
        ));
    }
    if over_budget {
        // The resource budget decides (the same on any machine); the
        // wall-clock one is the safety net.
        let which = if budget.spent_all() {
            format!(
                "its resource budget ({} Z3 resource units, {} times the per-query limit)",
                budget.limit(),
                super::budget::KERNEL_QUERY_LIMITS
            )
        } else {
            format!("its time budget ({} ms)", options.kernel_budget_ms)
        };
        findings.push(Finding::new(
            FindingKind::Unknown,
            Some(&k.name),
            k.span,
            format!(
                "unknown: verification of `{}` stopped after {which}; what it found so far is reported, nothing else is proven",
                k.name
            ),
        ));
    }
    let report = KernelReport {
        name: k.name.clone(),
        span: k.span,
        status: status(&findings, cx.cancelled()),
        millis: start.elapsed().as_millis() as u64,
        queries: (cx.counters.run + cx.counters.reused) as u32,
        queries_reused: cx.counters.reused as u32,
        launch: None,
        launch_note: None,
        dims_taken_as_one: cx.env.dims_taken_as_one(),
    };
    // Profiling aid, beside `smt::log_query`'s line per query: the
    // kernel's whole cost in the units its budget counts, and each check's
    // part of it.
    if std::env::var_os("SYNCSCOPE_QUERY_LOG").is_some() {
        eprintln!(
            "syncscope-kernel {} {} ms {} units {} queries {:?} barriers={after_barriers} races={} assertions={} redundancy={} rest={}",
            report.name,
            report.millis,
            budget.spent(),
            report.queries,
            report.status,
            after_races - after_barriers,
            after_assertions - after_races,
            after_redundancy - after_assertions,
            budget.spent() - after_redundancy,
        );
    }
    KernelOutcome {
        findings,
        report,
        races: races.pairs.into_values().collect(),
        over_budget,
        counters: cx.counters,
    }
}

/// Whether the kernel's verdict is `not-verified` before any query: its
/// model has a part it cannot represent, named by [`model_notes`]. Only a
/// race, a divergence or a failed assertion, all worse, can change it.
pub(super) fn decided_before_queries(k: &Kernel) -> bool {
    !k.unsupported.is_empty()
}

/// What the model itself says before any check: the parts of the kernel
/// it cannot represent, and a kernel with nothing to check.
pub(super) fn model_notes(k: &Kernel) -> Vec<Finding> {
    let mut findings = Vec::new();
    for u in &k.unsupported {
        findings.push(Finding::new(
            FindingKind::NotVerified,
            Some(&k.name),
            u.span,
            format!("not verified: {} (the model cannot represent it)", u.what),
        ));
    }
    if k.unsupported.is_empty() && k.accesses().is_empty() && k.barriers().is_empty() {
        // Verified, but vacuously: say so rather than claim a proof of
        // something that was never looked at.
        findings.push(Finding::new(
            FindingKind::Note,
            Some(&k.name),
            k.span,
            format!(
                "note: the model of `{}` has no memory access and no barrier: it is verified only in the sense that there is nothing to check",
                k.name
            ),
        ));
    }
    findings
}

/// The kernel's status: its worst finding, or unknown for a run that was
/// cancelled.
fn status(findings: &[Finding], cancelled: bool) -> KernelStatus {
    let has = |kind: FindingKind| findings.iter().any(|f| f.kind == kind);
    if has(FindingKind::BarrierDivergence) {
        KernelStatus::Divergent
    } else if has(FindingKind::DataRace) {
        KernelStatus::Racy
    } else if has(FindingKind::Assertion) {
        KernelStatus::AssertionFailed
    } else if has(FindingKind::NotVerified) {
        KernelStatus::NotVerified
    } else if has(FindingKind::Unknown) || cancelled {
        KernelStatus::Unknown
    } else {
        KernelStatus::Verified
    }
}

#[cfg(test)]
mod tests {
    use crate::report::{FindingKind, KernelStatus};

    /// Tiles of a matrix whose width and tile stride are parameters: the
    /// race queries multiply unknowns (costly for the solver), and no two
    /// threads meet. With an opaque store beside them the kernel is
    /// not-verified before any query, and its search stops at the
    /// allowance, a count of resource units, not of time.
    const COSTLY_BUT_HARMLESS: &str = r#"
__global__ void tiles(float *m, int *flag, int w, int s, int n)
{
    asm volatile("st.global.u32 [%0], %1;" ::"l"(flag), "r"(1));
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < n && s >= w) {
        for (int k = 0; k < 4; k++) {
            m[(y * s + x) * 4 + k] = m[(y * s + x) * 4 + k] * 2.0f;
        }
    }
}
"#;

    #[test]
    fn a_kernel_not_verified_before_its_queries_stays_so_within_its_allowance() {
        let report = crate::analyze_source(COSTLY_BUT_HARMLESS, &crate::Options::default());
        let k = &report.kernels[0];
        assert_eq!(k.status, KernelStatus::NotVerified);
        assert!(report
            .findings
            .iter()
            .any(|f| f.kind == FindingKind::NotVerified && f.message.contains("asm")));
        // Never reported as a kernel at its budget (nothing it could prove
        // was left unproved).
        assert!(!report
            .findings
            .iter()
            .any(|f| f.kind == FindingKind::Unknown
                && f.message.contains("stopped after its resource budget")));
    }

    /// Its allowance spent (here a small per-query limit, which also
    /// bounds the allowance), the kernel says so in a note naming the
    /// units, and stays the `not-verified` it was.
    #[test]
    fn a_spent_allowance_is_named_in_a_note() {
        let options = crate::Options {
            rlimit: 2_000,
            ..crate::Options::default()
        };
        let report = crate::analyze_source(COSTLY_BUT_HARMLESS, &options);
        assert_eq!(report.kernels[0].status, KernelStatus::NotVerified);
        assert!(
            report.findings.iter().any(|f| f.kind == FindingKind::Note
                && f.message.contains(
                    "is not-verified before any query (a part of it the model cannot represent); the search for a definite race or divergence, which would make the verdict worse, stopped after its allowance of 2000 Z3 resource units"
                )),
            "{:?}",
            report.findings
        );
    }

    /// A definite race beside the opaque store is still found: cheap, it
    /// fits the allowance.
    #[test]
    fn a_cheap_race_beside_an_opaque_construct_is_still_found() {
        let text = r#"
__global__ void neighbours(int *a, int *flag)
{
    asm volatile("st.global.u32 [%0], %1;" ::"l"(flag), "r"(1));
    a[threadIdx.x] = a[threadIdx.x + 1];
}
"#;
        let report = crate::analyze_source(text, &crate::Options::default());
        assert_eq!(report.kernels[0].status, KernelStatus::Racy);
    }
}
