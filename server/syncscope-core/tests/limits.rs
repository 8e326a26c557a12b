//! Resource limits: the per-kernel resource budget, its wall-clock safety
//! net and cancellation stop a
//! pathological kernel mid-query (the Z3 watchdog interrupts the check), and
//! what they stop is `unknown`, never `verified`. These tests assert what
//! is reported, not how long it took (a time limit fails on a loaded
//! machine): with a 20 s query timeout, only the budget or the cancellation
//! can produce the verdicts asserted here.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use syncscope_core::{cache::MemoryCache, Options};

/// Nonlinear indices the solver cannot decide quickly.
const HARD: &str = "__global__ void hard(int *a, int n, int m) {\n\
    int x = threadIdx.x + n, y = blockIdx.x + m;\n\
    a[x*x*x + y*y*y + n*n*n] = 1;\n\
    a[y*y*y*x + 7*n*m*x] = 2;\n\
}\n";

#[test]
fn the_kernel_budget_stops_a_kernel_whose_queries_would_each_run_long() {
    let options = Options {
        timeout_ms: 20_000,
        kernel_budget_ms: 300,
        ..Options::default()
    };
    let tree = syncscope_core::parse(HARD, None);
    let report = syncscope_core::analyze(HARD, &tree, &options, &MemoryCache::default(), None);
    assert_eq!(report.kernels[0].status.as_str(), "unknown");
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.message.contains("time budget")),
        "{:?}",
        report.findings
    );
}

/// The kernel's budget is Z3's resource count, not time: with no
/// wall-clock budget at all, a kernel whose queries need more units than
/// it has left stops, says so, and stops at the same point every time.
#[test]
fn the_resource_budget_stops_a_kernel_the_same_way_every_time() {
    let options = Options {
        timeout_ms: 600_000,
        kernel_budget_ms: 0,
        rlimit: 200_000,
        ..Options::default()
    };
    let run = || {
        let tree = syncscope_core::parse(HARD, None);
        syncscope_core::analyze(HARD, &tree, &options, &MemoryCache::default(), None)
    };
    let first = run();
    assert_eq!(first.kernels[0].status.as_str(), "unknown");
    assert!(
        first
            .findings
            .iter()
            .any(|f| f.message.contains("stopped after its resource budget")),
        "{:?}",
        first.findings
    );
    let again = run();
    let messages = |r: &syncscope_core::FileReport| {
        r.findings
            .iter()
            .map(|f| f.message.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(messages(&first), messages(&again));
    assert_eq!(first.kernels[0].queries, again.kernels[0].queries);
}

#[test]
fn cancellation_interrupts_a_running_query() {
    let options = Options {
        timeout_ms: 20_000,
        kernel_budget_ms: 0,
        ..Options::default()
    };
    let cancel = AtomicBool::new(false);
    let tree = syncscope_core::parse(HARD, None);
    let report = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(200));
            cancel.store(true, Ordering::Relaxed);
        });
        syncscope_core::analyze(
            HARD,
            &tree,
            &options,
            &MemoryCache::default(),
            Some(&cancel),
        )
    });
    assert_ne!(report.kernels[0].status.as_str(), "verified");
}

/// A cancelled analysis asks no more queries: a kernel that would be
/// verified is `unknown`, and no finding is claimed for it.
#[test]
fn a_cancelled_analysis_is_unknown_never_verified() {
    let text = "__global__ void safe(int *a) {\n    __shared__ int s[64];\n    s[threadIdx.x % 64] = a[threadIdx.x];\n    __syncthreads();\n    a[threadIdx.x] = s[threadIdx.x % 64];\n}\n";
    let tree = syncscope_core::parse(text, None);
    let cancel = AtomicBool::new(true);
    let report = syncscope_core::analyze(
        text,
        &tree,
        &Options::default(),
        &MemoryCache::default(),
        Some(&cancel),
    );
    assert_eq!(report.kernels[0].status.as_str(), "unknown");
    assert!(
        report.findings.iter().all(|f| f.witness.is_none()),
        "{:?}",
        report.findings
    );
}

#[test]
fn a_timeout_is_unknown_and_later_queries_still_run() {
    // After the watchdog interrupts one check, the thread's Z3 context must
    // answer the next queries normally.
    let text = format!(
        "{HARD}__global__ void easy(int *a) {{\n    __shared__ int s[64];\n    s[threadIdx.x % 64] = a[threadIdx.x];\n    a[threadIdx.x] = s[0];\n}}\n"
    );
    let options = Options {
        timeout_ms: 100,
        ..Options::default()
    };
    let tree = syncscope_core::parse(&text, None);
    let report = syncscope_core::analyze(&text, &tree, &options, &MemoryCache::default(), None);
    let status = |name: &str| {
        report
            .kernels
            .iter()
            .find(|k| k.name == name)
            .map(|k| k.status.as_str())
    };
    assert_ne!(status("hard"), Some("verified"));
    assert_eq!(status("easy"), Some("racy"));
}
