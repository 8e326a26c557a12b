//! Time of one project analysis with and without the launch-site index
//! (`analysis::project::SiteIndex`), on a generated folder of 50 kernel
//! files and a host `main.cu` that launches every kernel (docs/benchmarks.md,
//! "Launch sites of a project").
//! `cargo run --release -p syncscope-core --example site_index -- [RUNS]`
//!
//! Each run analyses `step00.cu` as the server does after an edit (query
//! cache warm): once with the index cleared (every sibling that names the
//! kernel is parsed, as before the index) and once with it warm, in
//! alternation so that load hits both alike. Prints the medians, their
//! difference and the files parsed per analysis (a count that does not
//! depend on load).
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;
use syncscope_core::analysis::project::{analyze, SiteIndex};
use syncscope_core::project::{Overlay, SearchPaths};
use syncscope_core::{MemoryCache, Options};

const FILES: usize = 50;

fn generate(dir: &std::path::Path) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("params.h"),
        "#pragma once\n#define BLOCK 128\n#define TILE 16\nstatic const int ROWS = 64;\n",
    )
    .unwrap();
    let mut main = String::from("#include \"params.h\"\n#include \"kernels.h\"\n\n");
    let mut decls = String::from("#pragma once\n");
    for i in 0..FILES {
        let next = (i + 1) % FILES;
        decls.push_str(&format!(
            "__global__ void step{i:02}_kernel(float *a, int n);\n"
        ));
        let mut file = format!(
            "#include \"params.h\"\n#include \"kernels.h\"\n\n__global__ void step{i:02}_kernel(float *a, int n) {{\n    __shared__ float s[BLOCK];\n    int t = threadIdx.x;\n    int i = blockIdx.x * blockDim.x + t;\n    s[t] = i < n ? a[i] : 0.0f;\n    __syncthreads();\n    if (i < n) a[i] = s[(t + 1) % BLOCK] + {i}.0f;\n}}\n\n"
        );
        // Host code of the file: launches its own kernel and the next one.
        file.push_str(&format!(
            "void run{i:02}(float *a, int n) {{\n    if (n % BLOCK != 0) return;\n    step{i:02}_kernel<<<n / BLOCK, BLOCK>>>(a, n);\n    step{next:02}_kernel<<<n / BLOCK, BLOCK>>>(a, n);\n}}\n"
        ));
        for j in 0..20 {
            file.push_str(&format!(
                "static int helper{i:02}_{j}(int x) {{ return x * {j} + ROWS; }}\n"
            ));
        }
        std::fs::write(dir.join(format!("step{i:02}.cu")), file).unwrap();
        main.push_str(&format!(
            "void launch{i:02}(float *a, int n) {{\n    dim3 block(BLOCK);\n    dim3 grid((n + BLOCK - 1) / BLOCK);\n    step{i:02}_kernel<<<grid, block>>>(a, n);\n}}\n"
        ));
    }
    std::fs::write(dir.join("kernels.h"), decls).unwrap();
    std::fs::write(dir.join("main.cu"), main).unwrap();
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(21);
    let dir =
        std::env::temp_dir().join(format!("syncscope-site-index-bench-{}", std::process::id()));
    generate(&dir);
    let file = dir.join("step00.cu");
    let text = std::fs::read_to_string(&file).unwrap();
    let buffers: HashMap<PathBuf, String> = HashMap::new();
    let cache = MemoryCache::default();
    let options = Options::default();
    let once = || {
        let started = Instant::now();
        let a = analyze(
            &file,
            &text,
            None,
            &options,
            &SearchPaths::default(),
            &Overlay { buffers: &buffers },
            &cache,
            None,
            None,
        );
        (started.elapsed().as_secs_f64() * 1000.0, a)
    };
    // Warm the query cache (and check what the analysis sees).
    let (_, first) = once();
    let launches = first
        .report
        .kernels
        .iter()
        .filter_map(|k| k.launch.clone())
        .collect::<Vec<_>>();
    let (mut cold, mut warm) = (Vec::new(), Vec::new());
    let (mut cold_parsed, mut warm_parsed) = (0, 0);
    for _ in 0..runs {
        SiteIndex::clear();
        let (ms, a) = once();
        cold.push(ms);
        cold_parsed = a.launch_files_parsed;
        let (ms, a) = once();
        warm.push(ms);
        warm_parsed = a.launch_files_parsed;
    }
    // The same file in a folder of its own (with its headers): what the
    // analysis costs without any other file to read.
    let alone_dir = dir.join("alone");
    std::fs::create_dir_all(&alone_dir).unwrap();
    for f in ["params.h", "kernels.h", "step00.cu"] {
        std::fs::copy(dir.join(f), alone_dir.join(f)).unwrap();
    }
    let alone_file = alone_dir.join("step00.cu");
    let alone_once = || {
        let started = Instant::now();
        analyze(
            &alone_file,
            &text,
            None,
            &options,
            &SearchPaths::default(),
            &Overlay { buffers: &buffers },
            &cache,
            None,
            None,
        );
        started.elapsed().as_secs_f64() * 1000.0
    };
    alone_once();
    let mut alone: Vec<f64> = (0..runs).map(|_| alone_once()).collect();
    let (c, w) = (median(&mut cold), median(&mut warm));
    let a = median(&mut alone);
    println!(
        "folder: {} files ({} kernel files, main.cu, 2 headers)",
        FILES + 3,
        FILES
    );
    println!("launches seen: {launches:?}");
    println!("index cleared: median {c:.2} ms, {cold_parsed} files parsed per analysis");
    println!("index warm:    median {w:.2} ms, {warm_parsed} files parsed per analysis");
    println!("file alone:    median {a:.2} ms (no other file in its folder)");
    println!(
        "saved per analysis: {:.2} ms ({:.1}x), {runs} runs each",
        c - w,
        c / w
    );
    let _ = std::fs::remove_dir_all(&dir);
}
