//! Resource limits: the per-kernel time budget and cancellation stop a
//! pathological kernel mid-query (the Z3 watchdog interrupts the check), and
//! what they stop is `unknown`, never `verified`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
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
    let start = Instant::now();
    let report = syncscope_core::analyze(HARD, &tree, &options, &MemoryCache::default(), None);
    let took = start.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "took {took:?} with a 300 ms budget"
    );
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

#[test]
fn cancellation_interrupts_a_running_query() {
    let options = Options {
        timeout_ms: 20_000,
        kernel_budget_ms: 0,
        ..Options::default()
    };
    let cancel = AtomicBool::new(false);
    let tree = syncscope_core::parse(HARD, None);
    let start = Instant::now();
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
    let took = start.elapsed();
    assert!(took < Duration::from_secs(5), "cancelled run took {took:?}");
    assert_ne!(report.kernels[0].status.as_str(), "verified");
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
