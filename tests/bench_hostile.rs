//! Time of the hostile inputs of `server/syncscope/tests/hostile.rs` and of
//! the solver limits of `server/syncscope-core/tests/limits.rs`
//! (`cargo bench -p syncscope-tests --bench hostile`). Those tests assert
//! behaviour only; how long the inputs take is measured here, through the
//! CLI's own entry point, and recorded in docs/benchmarks.md. Prints a
//! markdown table: median and max over the repetitions, and the target each
//! figure is held to.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use syncscope_core::{cache::MemoryCache, Options};

fn temp_file(name: &str, text: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("syncscope-bench-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    let p = d.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

/// `syncscope check --format=json FILE` in-process; returns the exit status.
fn check(path: &Path) -> i32 {
    let mut args = syncscope::cli::parse_check_args(&["--format=json"]).expect("flags");
    args.paths = vec![path.to_path_buf()];
    let (mut out, mut err) = (Vec::new(), Vec::new());
    syncscope::cli::check(&args, &mut out, &mut err, false)
}

fn ten_thousand_kernels() -> String {
    (0..10_000)
        .map(|i| {
            format!(
                "__global__ void k{i}(float *a) {{\n    __shared__ float s[32];\n    s[threadIdx.x % 32] = a[threadIdx.x];\n    __syncthreads();\n    a[threadIdx.x] = s[{}];\n}}\n",
                i % 32
            )
        })
        .collect()
}

fn five_mb() -> String {
    let mut text = String::from(
        "__global__ void big(float *a) {\n    __shared__ float s[256];\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    s[threadIdx.x] = a[i];\n    __syncthreads();\n    a[i] = s[255 - threadIdx.x];\n}\n",
    );
    let mut i = 0;
    while text.len() < 5 << 20 {
        text.push_str(&format!(
            "static int host_helper_{i}(int x) {{ return x * {i} + 1; }} // padding\n"
        ));
        i += 1;
    }
    text
}

fn deep_ifs() -> String {
    format!(
        "__global__ void k(int *a) {{ {} a[0] = threadIdx.x; {} }}\n",
        "if (a[1] > 0) {".repeat(10_000),
        "}".repeat(10_000)
    )
}

const ENDLESS: &str =
    "__global__ void k(int *a) {\n    for (int i = 0; i < 10; i += 0) a[threadIdx.x] = i;\n    a[0] += 1;\n}\n";

/// The nonlinear kernel of limits.rs.
const HARD: &str = "__global__ void hard(int *a, int n, int m) {\n\
    int x = threadIdx.x + n, y = blockIdx.x + m;\n\
    a[x*x*x + y*y*y + n*n*n] = 1;\n\
    a[y*y*y*x + 7*n*m*x] = 2;\n\
}\n";

fn budget_300ms() {
    let options = Options {
        timeout_ms: 20_000,
        kernel_budget_ms: 300,
        ..Options::default()
    };
    let tree = syncscope_core::parse(HARD, None);
    syncscope_core::analyze(HARD, &tree, &options, &MemoryCache::default(), None);
}

fn cancel_after_200ms() {
    let options = Options {
        timeout_ms: 20_000,
        kernel_budget_ms: 0,
        ..Options::default()
    };
    let cancel = AtomicBool::new(false);
    let tree = syncscope_core::parse(HARD, None);
    std::thread::scope(|s| {
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
        );
    });
}

fn main() {
    let reps: usize = if std::env::args().any(|a| a == "--quick") {
        1
    } else {
        3
    };
    let many = temp_file("many.cu", &ten_thousand_kernels());
    let big = temp_file("big.cu", &five_mb());
    let deep = temp_file("deep.cu", &deep_ifs());
    let endless = temp_file("endless.cu", ENDLESS);
    type Case<'a> = (&'a str, &'a str, Box<dyn Fn() + 'a>);
    let cases: Vec<Case> = vec![
        (
            "10,000 kernels in one file (`check`)",
            "< 20 s",
            Box::new(|| assert_eq!(check(&many), 1)),
        ),
        (
            "5 MB file, one kernel (`check`)",
            "< 20 s",
            Box::new(|| assert_eq!(check(&big), 0)),
        ),
        (
            "10,000 nested `if`s (`check`)",
            "< 20 s",
            Box::new(|| assert!(check(&deep) <= 2)),
        ),
        (
            "a `for` loop that never ends (`check`)",
            "< 20 s",
            Box::new(|| assert!(check(&endless) <= 2)),
        ),
        (
            "nonlinear kernel, 300 ms kernel budget",
            "< 5 s",
            Box::new(budget_300ms),
        ),
        (
            "nonlinear kernel, cancelled after 200 ms",
            "< 5 s",
            Box::new(cancel_after_200ms),
        ),
    ];
    println!("| input | median (s) | max (s) | target |\n|---|---|---|---|");
    for (name, target, run) in &cases {
        let mut times: Vec<f64> = (0..reps)
            .map(|_| {
                let start = Instant::now();
                run();
                start.elapsed().as_secs_f64()
            })
            .collect();
        times.sort_by(|a, b| a.total_cmp(b));
        println!(
            "| {name} | {:.2} | {:.2} | {target} |",
            times[times.len() / 2],
            times[times.len() - 1]
        );
    }
    if let Some(d) = many.parent() {
        let _ = std::fs::remove_dir_all(d);
    }
}
