//! Benchmarks (`cargo bench -p syncscope-tests`): front-end speed on a
//! 5,000-line file, corpus throughput, and the five synthetic families of
//! Faial's Claim 2 at sizes 1..50. Prints markdown tables for
//! docs/benchmarks.md. Medians over repeated runs; one run of this binary
//! gives every figure, so ratios are measured under the same conditions.

use std::time::Instant;
use syncscope_core::{cache::MemoryCache, Options};

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

/// A realistic 5,000-line file: many kernels of the corpus's shapes.
fn big_file(lines: usize) -> String {
    let mut s = String::from("#define TILE 16\n#define N 256\n");
    let mut i = 0;
    while s.lines().count() < lines {
        s.push_str(&format!(
            "__global__ void reduce_{i}(float *out, const float *in, int n) {{\n\
             \x20   __shared__ float sdata[N];\n\
             \x20   unsigned int tid = threadIdx.x;\n\
             \x20   unsigned int g = blockIdx.x * blockDim.x + tid;\n\
             \x20   sdata[tid] = g < n ? in[g] : 0.0f;\n\
             \x20   __syncthreads();\n\
             \x20   for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {{\n\
             \x20       if (tid < s) sdata[tid] += sdata[tid + s];\n\
             \x20       __syncthreads();\n\
             \x20   }}\n\
             \x20   if (tid == 0) out[blockIdx.x] = sdata[0];\n\
             }}\n\n\
             __global__ void tile_{i}(float *c, const float *a, const float *b, int w) {{\n\
             \x20   __shared__ float as[TILE][TILE];\n\
             \x20   __shared__ float bs[TILE][TILE];\n\
             \x20   int tx = threadIdx.x, ty = threadIdx.y;\n\
             \x20   int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n\
             \x20   float sum = 0.0f;\n\
             \x20   for (int t = 0; t < w / TILE; ++t) {{\n\
             \x20       as[ty][tx] = a[row * w + t * TILE + tx];\n\
             \x20       bs[ty][tx] = b[(t * TILE + ty) * w + col];\n\
             \x20       __syncthreads();\n\
             \x20       for (int k = 0; k < TILE; ++k)\n\
             \x20           sum += as[ty][k] * bs[k][tx];\n\
             \x20       __syncthreads();\n\
             \x20   }}\n\
             \x20   c[row * w + col] = sum;\n\
             }}\n\n"
        ));
        i += 1;
    }
    s
}

fn family(name: &str, n: usize) -> String {
    let mut body = String::new();
    match name {
        "accesses" => {
            for i in 1..=n {
                body.push_str(&format!(
                    "    x += s[tid + {i} * T];\n    s[tid + {} * T] = x;\n",
                    i
                ));
            }
        }
        "barriers" => {
            for _ in 0..n {
                body.push_str("    s[tid] = x;\n    __syncthreads();\n");
            }
        }
        "conditionals" => {
            for i in 0..n {
                body.push_str(&format!("    if (tid == {i}) s[tid] = x;\n"));
            }
        }
        "unsync-loops" => {
            for i in 0..n {
                body.push_str(&format!(
                    "{}for (int i{i} = 0; i{i} < n; i{i}++) {{\n",
                    "    ".repeat(i + 1)
                ));
                body.push_str(&format!("{}s[tid] = x;\n", "    ".repeat(i + 2)));
            }
            for i in (0..n).rev() {
                body.push_str(&format!("{}}}\n", "    ".repeat(i + 1)));
            }
        }
        _ => {
            for i in 0..n {
                body.push_str(&format!(
                    "{}for (int i{i} = 0; i{i} < n; i{i}++) {{\n",
                    "    ".repeat(i + 1)
                ));
                body.push_str(&format!(
                    "{}s[tid] = x;\n{}__syncthreads();\n",
                    "    ".repeat(i + 2),
                    "    ".repeat(i + 2)
                ));
            }
            for i in (0..n).rev() {
                body.push_str(&format!("{}}}\n", "    ".repeat(i + 1)));
            }
        }
    }
    format!(
        "// syncscope-args: --block-dim 256\n#define T 256\n__global__ void k(int n, int *in) {{\n    __shared__ int s[{}];\n    int tid = threadIdx.x;\n    int x = in[tid];\n{body}}}\n",
        256 * (2 * n + 2)
    )
}

/// A generator of one family's kernel at a size.
type FamilySource = fn(&str, usize) -> String;

/// The same family with symbolic launch sizes (what an editor user has):
/// no `--block-dim`, the stride `T` is `blockDim.x`, and the shared array
/// is `extern` (sized at launch).
fn family_symbolic(name: &str, n: usize) -> String {
    let fixed = family(name, n);
    let body_start = fixed.find("    int x = in[tid];\n").expect("family body");
    let body = &fixed[body_start..];
    format!(
        "#define T blockDim.x\n__global__ void k(int n, int *in) {{\n    extern __shared__ int s[];\n    int tid = threadIdx.x;\n{body}"
    )
}

/// The must-show kernels of issue 20 (tests/corpus/solver), symbolic launch
/// sizes unless the file fixes the block shape: median ms per kernel over
/// `reps` cold runs, and whether the verdict is the expected one.
fn must_show(reps: usize) {
    let dir = syncscope_tests::corpus_dir().join("solver");
    println!("## Must-show kernels (issue 20; ms per kernel, median of {reps} cold runs)\n");
    println!("| file | kernel | expected | got | median ms | max ms |\n|---|---|---|---|---|---|");
    for path in syncscope_tests::cu_files(&dir) {
        let text = std::fs::read_to_string(&path).expect("fixture");
        let e = syncscope_tests::expectations(&text);
        let options = syncscope_tests::options_for(&e);
        let tree = syncscope_core::parse(&text, None);
        let mut times: Vec<Vec<f64>> = Vec::new();
        let mut statuses = Vec::new();
        for _ in 0..reps {
            let r = syncscope_core::analyze(&text, &tree, &options, &MemoryCache::default(), None);
            times.resize(r.kernels.len(), Vec::new());
            statuses = r
                .kernels
                .iter()
                .map(|k| (k.name.clone(), k.status.as_str().to_string()))
                .collect();
            for (i, k) in r.kernels.iter().enumerate() {
                times[i].push(k.millis as f64);
            }
        }
        for (i, (name, got)) in statuses.iter().enumerate() {
            let expected = e.kernels.get(name).map(String::as_str).unwrap_or("?");
            let max = times[i].iter().cloned().fold(0.0, f64::max);
            println!(
                "| {} | {name} | {expected} | {got} | {:.0} | {:.0} |",
                path.file_name().unwrap().to_string_lossy(),
                median(&mut times[i]),
                max
            );
        }
    }
    println!();
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let frontend_only = std::env::args().any(|a| a == "--frontend-only");
    // `--families`: only the Scalability section (full sizes unless `--quick`).
    let families_only = std::env::args().any(|a| a == "--families");
    let reps = if quick { 3 } else { 10 };
    if families_only {
        // More runs per size, and the fastest run next to the median: on a
        // loaded machine a millisecond-long run is often delayed by a time
        // slice, which the minimum leaves out.
        families(quick, if quick { 5 } else { 15 }, true);
        return;
    }

    // 1. Front end on a 5,000-line file.
    let text = big_file(5000);
    let mut times = Vec::new();
    let mut kernels = 0;
    for _ in 0..reps {
        let t = Instant::now();
        let tree = syncscope_core::parse(&text, None);
        let k = syncscope_core::frontend::lower_file(&text, &tree, &Options::default());
        times.push(t.elapsed().as_secs_f64() * 1e3);
        kernels = k.len();
    }
    let mut parse_only = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        let tree = syncscope_core::parse(&text, None);
        parse_only.push(t.elapsed().as_secs_f64() * 1e3);
        drop(tree); // freeing the tree is not parsing (nor is it in the loop above)
    }
    println!("## Front end\n");
    println!("parse alone: {:.1} ms (median)\n", median(&mut parse_only));
    println!("| input | kernels | median parse + model (ms) |\n|---|---|---|");
    println!(
        "| {} lines | {kernels} | {:.1} |\n",
        text.lines().count(),
        median(&mut times)
    );
    if frontend_only {
        return;
    }

    // 2. Corpus throughput (cold cache: a fresh cache per file, as one
    //    `syncscope check` run starts with).
    let dir = syncscope_tests::corpus_dir();
    let mut per_kernel = Vec::new();
    let mut queries = Vec::new();
    let (mut unknown, mut pairs, mut pairs_without_z3) = (0, 0, 0);
    let t_all = Instant::now();
    for path in syncscope_tests::cu_files(&dir) {
        let text = std::fs::read_to_string(&path).expect("corpus file");
        let e = syncscope_tests::expectations(&text);
        let options = syncscope_tests::options_for(&e);
        let tree = syncscope_core::parse(&text, None);
        let report = syncscope_core::analyze(&text, &tree, &options, &MemoryCache::default(), None);
        for k in &report.kernels {
            per_kernel.push(k.millis as f64);
            queries.push(k.queries as f64);
            unknown += (k.status.as_str() == "unknown") as usize;
        }
        pairs += report.stats.access_pairs;
        pairs_without_z3 += report.stats.access_pairs_without_z3;
    }
    let wall = t_all.elapsed().as_secs_f64();
    let n = per_kernel.len();
    println!("## Corpus (cold cache)\n");
    println!("| kernels | median ms/kernel | p95 | max | median queries/kernel | total wall (s) |\n|---|---|---|---|---|---|");
    println!(
        "| {n} | {:.0} | {:.0} | {:.0} | {:.0} | {:.1} |\n",
        median(&mut per_kernel.clone()),
        percentile(&mut per_kernel.clone(), 0.95),
        per_kernel.iter().cloned().fold(0.0, f64::max),
        median(&mut queries),
        wall
    );

    println!(
        "kernels `unknown`: {unknown}; conflicting access pairs decided without Z3: {pairs_without_z3} of {pairs} ({:.0}%)\n",
        100.0 * pairs_without_z3 as f64 / pairs.max(1) as f64
    );

    must_show(reps);
    families(quick, reps.min(5), false);
}

/// 3. Faial Claim 2 families.
fn families(quick: bool, reps: usize, with_min: bool) {
    let fastest = if with_min {
        ", fastest run in parentheses"
    } else {
        ""
    };
    println!("## Scalability (Faial Claim 2 families, race-free; ms, median of {reps}{fastest})\n");
    let sizes: &[usize] = if quick {
        &[1, 10, 25]
    } else {
        &[1, 10, 20, 30, 40, 50]
    };
    print!("| family |");
    for s in sizes {
        print!(" {s} |");
    }
    println!();
    println!("|---|{}", "---|".repeat(sizes.len()));
    let variants: [(&str, FamilySource); 2] =
        [("", family), (" (symbolic launch)", family_symbolic)];
    for (label, make) in variants {
        for fam in [
            "accesses",
            "barriers",
            "conditionals",
            "unsync-loops",
            "sync-loops",
        ] {
            print!("| {fam}{label} |");
            let mut by_size = Vec::new();
            for &size in sizes {
                let src = make(fam, size);
                let mut t = Vec::new();
                let mut status = String::new();
                for _ in 0..reps {
                    // A fresh (cold) cache per run, as `syncscope check` starts.
                    let start = Instant::now();
                    let r = syncscope_core::analyze(
                        &src,
                        &syncscope_core::parse(&src, None),
                        &Options::default(),
                        &MemoryCache::default(),
                        None,
                    );
                    t.push(start.elapsed().as_secs_f64() * 1e3);
                    status = r
                        .kernels
                        .first()
                        .map(|k| k.status.as_str().to_string())
                        .unwrap_or_default();
                }
                let mark = if status == "verified" { "" } else { " (!)" };
                let m = median(&mut t);
                by_size.push((size, m));
                if with_min {
                    print!(" {m:.1} ({:.1}){mark} |", t[0]);
                } else {
                    print!(" {m:.1}{mark} |");
                }
            }
            let at = |n: usize| by_size.iter().find(|(s, _)| *s == n).map(|(_, t)| *t);
            if let (Some(t10), Some(t50)) = (at(10), at(50)) {
                print!(" T(50)/T(10) = {:.1} |", t50 / t10.max(0.5));
            }
            println!();
        }
    }
}
