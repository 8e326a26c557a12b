//! Latency benchmark: time from a `didChange` to the fresh diagnostics of the
//! new version (the `syncscope/status` that follows its publishDiagnostics),
//! for a 2,000-line file of 40 kernels and a 1-kernel file, and the cold-open
//! time (`didOpen` to the first diagnostics, fresh server and caches).
//! In-process via `syncscope_lsp::serve` over a duplex pipe.
//!
//! `cargo run --release -p syncscope-lsp --example lsp_latency [-- ITERATIONS]`

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

async fn measure(kernels: usize, iterations: usize) -> (Duration, Vec<Duration>) {
    let (client_side, server_side) = tokio::io::duplex(1 << 20);
    let (sr, sw) = tokio::io::split(server_side);
    let server = tokio::spawn(syncscope_lsp::serve(sr, sw));
    let (cr, cw) = tokio::io::split(client_side);
    let mut c = LspClient::new(cr, cw);
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
        c.did_change(
            &uri,
            version,
            json!([{ "range": { "start": { "line": line, "character": 18 }, "end": { "line": line, "character": 19 } },
                     "text": format!("{}", (it % 9) + 1) }]),
        );
        c.wait_analysis(since, &uri, version).await;
        out.push(start.elapsed());
    }
    c.shutdown_and_exit().await;
    let _ = server.await;
    (open, out)
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
}
