//! Memory benchmark: peak resident memory of the real server process
//! (`syncscope lsp` over stdio) after opening twenty generated 2,000-line
//! files of 40 kernels each and waiting for every file's diagnostics.
//!
//! Reads `VmHWM` (peak RSS) and `VmRSS` of the server process from
//! `/proc/<pid>/status` (Linux only). Build the binary first:
//!
//! ```sh
//! cargo build --release -p syncscope
//! cargo run --release -p syncscope-lsp --example lsp_memory -- [PATH/TO/syncscope] [FILES]
//! ```
//!
//! The default binary path is `$CARGO_TARGET_DIR/release/syncscope` (or
//! `target/release/syncscope`).

#[path = "../tests/support/mod.rs"]
mod support;

use serde_json::json;
use std::process::Stdio;
use std::time::{Duration, Instant};
use support::LspClient;

const KERNELS: usize = 40;
const LINES_PER_KERNEL: usize = 50;

/// Pads a kernel body with independent register arithmetic up to 50 lines.
fn pad(lines: &mut Vec<String>, head: usize, tail: usize, seed: usize) {
    let mut j = 0;
    while lines.len() + tail < LINES_PER_KERNEL - head {
        lines.push(format!(
            "    acc = acc * 0.5f + {}.0f;",
            (seed + j) % 97 + 1
        ));
        j += 1;
    }
}

/// Kernel `i` of file `f`: four shapes (register work + a shared-memory
/// exchange, a tree reduction, a 2-D tiled transpose, a racy neighbour
/// read), each exactly 50 lines with the blank line after it.
fn kernel(f: usize, i: usize) -> String {
    let name = format!("f{f}_k{i}");
    let c = f * 131 + i;
    let (head, mut body, tail): (String, Vec<String>, Vec<String>) = match i % 4 {
        0 => (
            format!("__global__ void {name}(float *a) {{\n    __shared__ float s[256];\n    int t = threadIdx.x;\n    float acc = a[t];"),
            Vec::new(),
            vec![
                "    s[t] = acc;".into(),
                "    __syncthreads();".into(),
                format!("    a[t] = s[(t + {}) % 256];", c % 255 + 1),
                "}".into(),
            ],
        ),
        1 => (
            format!("__global__ void {name}(const float *in, float *out) {{\n    __shared__ float s[256];\n    int t = threadIdx.x;\n    float acc = in[blockIdx.x * 256 + t];"),
            Vec::new(),
            vec![
                "    s[t] = acc;".into(),
                "    __syncthreads();".into(),
                "    for (int k = 128; k > 0; k >>= 1) {".into(),
                "        if (t < k) s[t] += s[t + k];".into(),
                "        __syncthreads();".into(),
                "    }".into(),
                "    if (t == 0) out[blockIdx.x] = s[0];".into(),
                "}".into(),
            ],
        ),
        2 => (
            format!("__global__ void {name}(const float *in, float *out, int n) {{\n    __shared__ float tile[16][17];\n    int x = threadIdx.x, y = threadIdx.y;\n    float acc = in[y * n + x];"),
            Vec::new(),
            vec![
                "    tile[y][x] = acc;".into(),
                "    __syncthreads();".into(),
                format!("    out[x * n + y] = tile[x][y] * {}.0f;", c % 7 + 1),
                "}".into(),
            ],
        ),
        _ => (
            format!("__global__ void {name}(float *a) {{\n    __shared__ float s[256];\n    int t = threadIdx.x;\n    float acc = a[t];"),
            Vec::new(),
            vec![
                "    s[t] = acc;".into(),
                format!("    a[t] = s[(t + {}) % 256];", c % 255 + 1),
                "}".into(),
            ],
        ),
    };
    pad(&mut body, 4, tail.len() + 1, c);
    let mut out = head;
    out.push('\n');
    for l in body.iter().chain(&tail) {
        out.push_str(l);
        out.push('\n');
    }
    out.push('\n');
    out
}

fn file(f: usize) -> String {
    (0..KERNELS).map(|i| kernel(f, i)).collect()
}

fn proc_status(pid: u32, key: &str) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let binary = args.next().unwrap_or_else(|| {
        let dir = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into());
        format!("{dir}/release/syncscope")
    });
    let files: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    assert_eq!(file(0).lines().count(), KERNELS * LINES_PER_KERNEL);

    let mut child = tokio::process::Command::new(&binary)
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {binary} lsp: {e}"));
    let pid = child.id().expect("server pid");
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut c = LspClient::new(stdout, stdin);
    c.timeout = Duration::from_secs(900);
    c.initialize(
        None,
        json!({ "initializationOptions": { "blockDim": [256], "gridDim": [16] } }),
    )
    .await;
    let kb = |k: &str| proc_status(pid, k).unwrap_or(0) as f64 / 1024.0;
    println!(
        "after initialize: RSS {:.1} MB, peak {:.1} MB",
        kb("VmRSS:"),
        kb("VmHWM:")
    );
    let start = Instant::now();
    let mut pending = Vec::new();
    for f in 0..files {
        let uri = format!("file:///bench/mem/f{f}.cu");
        let since = c.mark();
        c.did_open(&uri, 1, &file(f));
        pending.push((uri, since));
    }
    let mut findings = 0;
    for (uri, since) in &pending {
        let (_, diags) = c.wait_analysis(*since, uri, 1).await;
        findings += diags.len();
    }
    let elapsed = start.elapsed();
    let stats = c.request("syncscope/stats", serde_json::Value::Null).await;
    println!(
        "{files} files x {} lines ({} kernels) analysed in {:.1} s, {findings} diagnostics; stats {stats}",
        KERNELS * LINES_PER_KERNEL,
        files * KERNELS,
        elapsed.as_secs_f64()
    );
    println!(
        "server after all diagnostics: RSS {:.1} MB, peak RSS (VmHWM) {:.1} MB",
        kb("VmRSS:"),
        kb("VmHWM:")
    );
    c.shutdown_and_exit().await;
    let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
}
