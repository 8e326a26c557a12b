//! Latency benchmark of the real server (`syncscope lsp`, spawned, over
//! stdio): time from a `didChange` to the fresh diagnostics of the new
//! version (the `syncscope/status` that follows its publishDiagnostics), for
//! a 2,000-line file of 40 kernels and a 1-kernel file, every edit leaving a
//! text never seen before (no cache can answer it), and the cold-open time.
//! Then the racy edit: removing the barrier before 39 neighbour reads (race
//! squiggle), and the code action for it (the one checked quick-fix).
//!
//! `cargo build --release -p syncscope && cargo run --release -p syncscope-lsp --example lsp_latency [-- ITERATIONS [PATH/TO/syncscope]]`

#[path = "../tests/support/mod.rs"]
mod support;

use serde_json::json;
use std::time::{Duration, Instant};
use support::LspClient;

/// One kernel of about 50 lines.
fn kernel(i: usize) -> String {
    let mut k = format!(
        "__global__ void kern{i}(float *a) {{\n    __shared__ float s[256];\n    int t = threadIdx.x;\n    float acc = 0.0f;\n"
    );
    for j in 0..41 {
        k.push_str(&format!("    acc += a[t] * {}.0f;\n", j + 1));
    }
    k.push_str(&format!(
        "    s[t] = acc;\n    __syncthreads();\n    a[t] = s[(t + {}) % 256];\n}}\n\n",
        i + 1
    ));
    k
}

fn file(kernels: usize) -> String {
    (0..kernels).map(kernel).collect()
}

const LINES_PER_KERNEL: usize = 50;

fn binary() -> String {
    std::env::args()
        .nth(2)
        .unwrap_or_else(|| "target/release/syncscope".to_string())
}

/// `syncscope lsp` on stdio.
fn spawn() -> (LspClient, tokio::process::Child) {
    let mut child = tokio::process::Command::new(binary())
        .arg("lsp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn syncscope lsp (build it with cargo build --release -p syncscope)");
    let stdout = child.stdout.take().unwrap();
    let stdin = child.stdin.take().unwrap();
    (LspClient::new(stdout, stdin), child)
}

async fn measure(kernels: usize, iterations: usize) -> (Duration, Vec<Duration>) {
    let (mut c, mut server) = spawn();
    c.timeout = Duration::from_secs(600);
    c.initialize(
        None,
        json!({ "initializationOptions": { "blockDim": [256], "gridDim": [1] } }),
    )
    .await;
    let uri = format!("file:///bench/k{kernels}.cu");
    let text = file(kernels);
    let since = c.mark();
    let start = Instant::now();
    c.did_open(&uri, 1, &text);
    c.wait_analysis(since, &uri, 1).await;
    let open = start.elapsed();
    let mut out = Vec::new();
    for it in 0..iterations {
        // Change one constant in the first statement of kernel `it % kernels`.
        let line = (it % kernels) * LINES_PER_KERNEL + 4;
        let version = it as i64 + 2;
        let since = c.mark();
        let start = Instant::now();
        // A constant never used before: a state no cache has seen.
        c.did_change(
            &uri,
            version,
            json!([{ "range": { "start": { "line": line, "character": 0 }, "end": { "line": line + 1, "character": 0 } },
                     "text": format!("    acc += a[t] * {}.0f;\n", 1000 + it) }]),
        );
        c.wait_analysis(since, &uri, version).await;
        out.push(start.elapsed());
    }
    c.shutdown_and_exit().await;
    let _ = server.wait().await;
    (open, out)
}

/// The kernel of the racy edit: a write, the barrier, 39 neighbour reads.
fn neighbours(k: usize) -> String {
    let mut s = format!(
        "__global__ void neighbours(float *a) {{\n    __shared__ float s[256];\n    int t = threadIdx.x;\n    float acc = 0.0f;\n    s[t] = a[t + {k}];\n    __syncthreads();\n"
    );
    for j in 1..=39 {
        s.push_str(&format!("    acc += s[(t + {j}) % 256];\n"));
    }
    s.push_str("    a[t] = acc;\n}\n\n");
    s
}

/// Racy edits in a 40-kernel file: (race squiggle, code action) latencies.
async fn racy_edits(iterations: usize) -> (Vec<Duration>, Vec<Duration>) {
    let (mut c, mut server) = spawn();
    c.timeout = Duration::from_secs(600);
    c.initialize(
        None,
        json!({ "initializationOptions": { "blockDim": [256], "gridDim": [1] } }),
    )
    .await;
    let uri = "file:///bench/racy.cu";
    let others = file(39);
    let first_line = others.lines().count() as u64;
    let text = format!("{others}{}", neighbours(0));
    let since = c.mark();
    c.did_open(uri, 1, &text);
    c.wait_analysis(since, uri, 1).await;
    let (mut squiggle, mut action) = (Vec::new(), Vec::new());
    let mut version = 1;
    let write = first_line + 4;
    let barrier = first_line + 5;
    for it in 0..iterations {
        // A new constant in the write, barrier kept (a fresh, clean state)...
        version += 1;
        let since = c.mark();
        c.did_change(
            uri,
            version,
            json!([{ "range": { "start": { "line": write, "character": 0 }, "end": { "line": write + 1, "character": 0 } },
                     "text": format!("    s[t] = a[t + {}];\n", 1000 + it) }]),
        );
        c.wait_analysis(since, uri, version).await;
        // ...then the barrier removed: the race squiggle.
        version += 1;
        let since = c.mark();
        let start = Instant::now();
        c.did_change(
            uri,
            version,
            json!([{ "range": { "start": { "line": barrier, "character": 0 }, "end": { "line": barrier + 1, "character": 0 } },
                     "text": "" }]),
        );
        let (_, diags) = c.wait_analysis(since, uri, version).await;
        squiggle.push(start.elapsed());
        let race = diags
            .iter()
            .find(|d| d["code"] == "data-race")
            .expect("the race")
            .clone();
        let start = Instant::now();
        let actions = c
            .request(
                "textDocument/codeAction",
                json!({ "textDocument": { "uri": uri }, "range": race["range"],
                        "context": { "diagnostics": [race], "only": ["quickfix"] } }),
            )
            .await;
        action.push(start.elapsed());
        let actions = actions.as_array().cloned().unwrap_or_default();
        assert_eq!(actions.len(), 1, "one quick-fix: {actions:#?}");
        assert_eq!(actions[0]["isPreferred"], true, "a checked fix");
        // Put the barrier back.
        version += 1;
        let since = c.mark();
        c.did_change(
            uri,
            version,
            json!([{ "range": { "start": { "line": barrier, "character": 0 }, "end": { "line": barrier, "character": 0 } },
                     "text": "    __syncthreads();\n" }]),
        );
        c.wait_analysis(since, uri, version).await;
    }
    c.shutdown_and_exit().await;
    let _ = server.wait().await;
    (squiggle, action)
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

/// Prints the figures; returns the median edit latency.
fn report(name: &str, (open, mut v): (Duration, Vec<Duration>)) -> Duration {
    v.sort();
    let pct = |p: f64| v[((v.len() as f64 - 1.0) * p).round() as usize];
    println!(
        "{name:>28}: median {:>8.1} ms   p95 {:>8.1} ms   (n = {})   cold open {:>8.1} ms",
        pct(0.5).as_secs_f64() * 1e3,
        pct(0.95).as_secs_f64() * 1e3,
        v.len(),
        open.as_secs_f64() * 1e3
    );
    pct(0.5)
}

#[tokio::main]
async fn main() {
    let iterations: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20);
    assert_eq!(file(40).lines().count(), 40 * LINES_PER_KERNEL);
    let one = report("1 kernel (50 lines)", measure(1, iterations).await);
    let forty = report("40 kernels (2,000 lines)", measure(40, iterations).await);
    println!(
        "{:>28}: {:.2}",
        "ratio of medians 40 / 1",
        forty.as_secs_f64() / one.as_secs_f64()
    );
    let (squiggle, action) = racy_edits(iterations.min(10)).await;
    let n = squiggle.len();
    println!(
        "{:>28}: median {:>8.1} ms   (n = {n})",
        "race squiggle",
        median(squiggle)
    );
    println!(
        "{:>28}: median {:>8.1} ms   (n = {n})",
        "checked quick-fix",
        median(action)
    );
}
