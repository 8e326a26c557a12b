//! The real `syncscope check` binary on hostile input: pathological files
//! (non-UTF-8, 5 MB, 10,000-deep nesting, 10,000 kernels, huge constants,
//! division by zero, unsupported C++) and hundreds of mutated corpus kernels.
//! Every run must end by itself with exit status 0, 1 or 2 (no panic, no
//! signal), and say something.
//!
//! No test here has a time limit (a limit fails on a loaded machine, not on
//! slow code): how long these inputs take is measured by the benchmark
//! `cargo bench -p syncscope-tests --bench hostile` and recorded in
//! docs/benchmarks.md. A run that never ends would hang this test, which the
//! CI job's own time limit catches.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use syncscope_tests::fuzz::{self, Rng};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    took: Duration,
}

/// Runs `syncscope check ARGS...` to its end.
fn check(args: &[&str]) -> Run {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_syncscope"))
        .arg("check")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn syncscope check");
    // Drain the pipes on threads so a large output cannot block the child.
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut out, &mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut err, &mut s);
        s
    });
    let status = child.wait().expect("wait");
    let took = start.elapsed();
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    let code = status.code().unwrap_or_else(|| {
        panic!(
            "`syncscope check {}` died by a signal ({status:?}): {stderr}",
            args.join(" ")
        )
    });
    assert!(
        (0..=2).contains(&code),
        "`syncscope check {}` exited {code}: {stderr}",
        args.join(" ")
    );
    assert!(
        !stderr.contains("panicked"),
        "`syncscope check {}` panicked: {stderr}",
        args.join(" ")
    );
    Run {
        code,
        stdout,
        stderr,
        took,
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("syncscope-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p.to_string_lossy().into_owned()
}

/// The JSON report of one file: (kernel statuses, findings).
fn json_report(path: &str) -> (Run, Vec<(String, String)>, Vec<Value>) {
    let run = check(&["--format=json", path]);
    let v: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {}{}", run.stdout, run.stderr));
    let kernels = v["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .map(|k| {
            (
                k["name"].as_str().unwrap_or("").to_string(),
                k["status"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let findings = v["findings"].as_array().cloned().expect("findings");
    (run, kernels, findings)
}

#[test]
fn non_utf8_and_binary_files_are_refused_with_a_message() {
    let d = temp_dir("encoding");
    for (name, bytes, what) in [
        (
            "latin1.cu",
            &b"// caf\xe9\n__global__ void k() {}\n"[..],
            "UTF-8",
        ),
        ("utf16.cu", b"\xff\xfe_\0_\0g\0", "binary"),
        ("nul.cu", b"__global__ void k() {}\0", "binary"),
        (
            "truncated_utf8.cu",
            b"__global__ void k() {} // \xe2\x82",
            "UTF-8",
        ),
    ] {
        let p = write(&d, name, bytes);
        let r = check(&[&p]);
        assert_eq!(r.code, 2, "{name}");
        assert!(
            r.stderr.contains(what) && r.stderr.contains(name),
            "{name}: {}",
            r.stderr
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_5_mb_file_is_checked() {
    let d = temp_dir("big");
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
    let p = write(&d, "big.cu", &text);
    let (r, kernels, _) = json_report(&p);
    assert_eq!(kernels, [("big".to_string(), "verified".to_string())]);
    eprintln!("5 MB file: {:?}", r.took);
    let _ = std::fs::remove_dir_all(&d);
}

/// Ten thousand levels of every kind of nesting around a racy write
/// (`a[0] = threadIdx.x`): whatever the model makes of it, "verified" would be
/// false, so the kernel must be racy or not-verified, or the file a syntax error.
#[test]
fn ten_thousand_deep_nesting_does_not_overflow_the_stack() {
    let d = temp_dir("deep");
    const N: usize = 10_000;
    const RACY: &str = "a[0] = threadIdx.x;";
    let wrap = |open: &str, close: &str| {
        format!(
            "__global__ void k(int *a) {{ {} {RACY} {} }}\n",
            open.repeat(N),
            close.repeat(N)
        )
    };
    let expr = |e: String| format!("__global__ void k(int *a) {{ a[0] = threadIdx.x + {e}; }}\n");
    let cases = [
        ("blocks", wrap("{", "}")),
        ("ifs", wrap("if (a[1] > 0) {", "}")),
        ("whiles", wrap("while (a[1]) {", "}")),
        ("fors", wrap("for (int i = 0; i < 2; i++) {", "}")),
        (
            "parens",
            expr(format!("{}1{}", "(".repeat(N), ")".repeat(N))),
        ),
        ("binary", expr(format!("1{}", " + a[1]".repeat(N)))),
        ("ternary", expr(format!("{}0", "a[1] ? 1 : ".repeat(N)))),
        ("unary", expr(format!("{}1", "-~".repeat(N / 2)))),
        (
            "index",
            expr(format!("{}0{}", "a[".repeat(N), "]".repeat(N))),
        ),
        (
            "calls",
            format!(
                "__device__ int f(int x) {{ return x; }}\n{}",
                expr(format!("{}0{}", "f(".repeat(N), ")".repeat(N)))
            ),
        ),
        (
            "macros",
            (0..N)
                .map(|i| format!("#define M{} (M{} + 1)\n", i + 1, i))
                .collect::<String>()
                + "#define M0 0\n"
                + &expr(format!("M{N}")),
        ),
        (
            "unclosed",
            format!("__global__ void k(int *a) {{ {}", "{ if (a[0]) (".repeat(N)),
        ),
    ];
    let mut problems = Vec::new();
    for (name, text) in &cases {
        let p = write(&d, &format!("{name}.cu"), text);
        let (r, kernels, findings) = json_report(&p);
        let syntax = findings.iter().any(|f| f["kind"] == "syntax-error");
        if kernels.iter().any(|(_, s)| s == "verified") || (kernels.is_empty() && !syntax) {
            problems.push(format!("{name}: {kernels:?} {findings:?}"));
        }
        eprintln!("{name}: {kernels:?} in {:?}", r.took);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn loops_that_never_end_are_checked() {
    let d = temp_dir("endless");
    let cases = [
        // The replay ran this loop to its step budget, then compared every
        // pair of the two threads' events (>60 s).
        (
            "zero_step",
            "__global__ void k(int *a) {\n    for (int i = 0; i < 10; i += 0) a[threadIdx.x] = i;\n    a[0] += 1;\n}\n",
        ),
        (
            "empty_while",
            "__global__ void k(int *a) {\n    while (1) {}\n    a[0] = threadIdx.x;\n}\n",
        ),
        (
            "for_ever",
            "__global__ void k(int *a) {\n    for (;;) { a[threadIdx.x] += 1; }\n    a[0] = threadIdx.x;\n}\n",
        ),
    ];
    let mut problems = Vec::new();
    for (name, text) in cases {
        let p = write(&d, &format!("{name}.cu"), text);
        let (r, kernels, _) = json_report(&p);
        eprintln!("{name}: {kernels:?} in {:?}", r.took);
        if kernels.len() != 1 {
            problems.push(format!("{name}: {kernels:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn ten_thousand_kernels_in_a_file() {
    let d = temp_dir("many");
    let text: String = (0..10_000)
        .map(|i| {
            format!(
                "__global__ void k{i}(float *a) {{\n    __shared__ float s[32];\n    s[threadIdx.x % 32] = a[threadIdx.x];\n    __syncthreads();\n    a[threadIdx.x] = s[{}];\n}}\n",
                i % 32
            )
        })
        .collect();
    let p = write(&d, "many.cu", &text);
    // 32 distinct kernel bodies, every one racy (threads t and t + 32 both
    // write s[t % 32]); every kernel is reported, in file order, with it.
    let r = check(&["--format=json", &p]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("JSON report");
    let kernels = v["kernels"].as_array().expect("kernels");
    assert_eq!(kernels.len(), 10_000);
    for (i, k) in kernels.iter().enumerate() {
        assert_eq!(k["name"], format!("k{i}"), "kernels in file order");
        assert_eq!(k["status"], "racy", "k{i}");
    }
    eprintln!("10,000 kernels: {:?}", r.took);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn huge_constants_overflow_and_division_by_zero() {
    let d = temp_dir("consts");
    let cases = [
        "a[99999999999999999999999] = 1;",
        "a[threadIdx.x + 18446744073709551615ull] = 1;",
        "a[threadIdx.x * 2147483647 * 2147483647] = 1;",
        "a[(1 << 70) + threadIdx.x] = 1;",
        "a[threadIdx.x << 4000000000] = 1;",
        "a[threadIdx.x >> -1] = 1;",
        "a[(-2147483647 - 1) / -1 + threadIdx.x] = 1;",
        "a[-9223372036854775807 - 1 + threadIdx.x] = 1;",
        "a[threadIdx.x / 0] = 1;",
        "a[threadIdx.x % 0] = 1;",
        "a[N / 0 + threadIdx.x] = 1;",
        "a[threadIdx.x] = 1 / (N - N);",
        "__shared__ int s[10 / 0]; s[threadIdx.x] = 1;",
        "__shared__ int s[1 << 40]; s[threadIdx.x] = 1;",
        "__shared__ int s[-1]; s[threadIdx.x] = 1;",
        "for (long long i = 0; i < 9223372036854775807; i += 4611686018427387904) a[i + threadIdx.x] = 1;",
        "for (int i = 1; i != 0; i *= 2) a[threadIdx.x * i] = 1;",
        "a[threadIdx.x + (int)1e400] = 1;",
        "a[threadIdx.x + 0x7fffffffffffffff * 16] = 1;",
        "a[threadIdx.x + sizeof(int[1000000000])] = 1;",
        "a[threadIdx.x + E / 0] = 1;",
    ];
    for (i, body) in cases.iter().enumerate() {
        let text = format!(
            "#define N 7\nenum {{ E = 1 << 31, F = E / 0 }};\ntemplate <int K> __device__ int g() {{ return K / (K - 3); }}\n__global__ void k(int *a) {{\n    {body}\n    a[0] += g<3>();\n}}\n"
        );
        let p = write(&d, &format!("c{i}.cu"), &text);
        let (_, kernels, findings) = json_report(&p);
        assert!(
            !kernels.is_empty() || !findings.is_empty(),
            "{body}: nothing said"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// Unsupported C++ inside kernels that touch shared memory through it:
/// the kernel must not be called verified, and a finding must say why.
#[test]
fn unsupported_cpp_is_named_not_verified() {
    let d = temp_dir("cpp");
    let cases = [
        ("lambda", "__global__ void k(float *a) {\n    __shared__ float s[64];\n    auto put = [=](int i) { s[i] = a[i]; };\n    put(threadIdx.x % 2);\n    a[threadIdx.x] = s[0];\n}\n"),
        ("class_def_in_kernel", "__global__ void k(float *a) {\n    class C { public: int x; };\n    __shared__ C s[64];\n    s[threadIdx.x % 2].x = 1;\n    a[threadIdx.x] = s[0].x;\n}\n"),
        ("typename_template", "template <typename T> __global__ void k(T *a) {\n    __shared__ T s[64];\n    s[threadIdx.x % 2] = a[threadIdx.x];\n    a[threadIdx.x] = s[0];\n}\ntemplate __global__ void k<float>(float *);\n"),
        ("template_template", "template <template <int> class P, int N> __global__ void k(float *a) {\n    __shared__ float s[64];\n    s[threadIdx.x % 2] = a[threadIdx.x];\n    a[threadIdx.x] = s[0];\n}\n"),
        ("virtual", "struct B { __device__ virtual int f() { return 0; } };\n__global__ void k(float *a, B *b) {\n    __shared__ float s[64];\n    s[b->f()] = a[threadIdx.x];\n    a[threadIdx.x] = s[0];\n}\n"),
        ("operator_overload", "struct V { float x; __device__ V operator+(V o) const { return {x + o.x}; } };\n__global__ void k(V *a) {\n    __shared__ V s[64];\n    s[threadIdx.x % 2] = a[threadIdx.x] + a[0];\n    a[threadIdx.x] = s[0];\n}\n"),
        ("function_pointer", "__device__ int idx(int t) { return t % 2; }\n__global__ void k(float *a) {\n    __shared__ float s[64];\n    int (*f)(int) = idx;\n    s[f(threadIdx.x)] = a[threadIdx.x];\n    a[threadIdx.x] = s[0];\n}\n"),
        ("inline_asm", "__global__ void k(float *a) {\n    __shared__ float s[64];\n    int i;\n    asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(i));\n    s[i % 2] = a[threadIdx.x];\n    a[threadIdx.x] = s[0];\n}\n"),
        ("recursion", "__device__ int r(int n) { return n <= 0 ? 0 : r(n - 1); }\n__global__ void k(float *a) {\n    __shared__ float s[64];\n    s[r(threadIdx.x) % 2] = a[threadIdx.x];\n    a[threadIdx.x] = s[0];\n}\n"),
        ("exceptions", "__global__ void k(float *a) {\n    __shared__ float s[64];\n    try { s[threadIdx.x % 2] = a[threadIdx.x]; } catch (...) {}\n    a[threadIdx.x] = s[0];\n}\n"),
    ];
    let mut problems = Vec::new();
    for (name, text) in cases {
        let p = write(&d, &format!("{name}.cu"), text);
        let (_, kernels, findings) = json_report(&p);
        let explained = findings.iter().any(|f| {
            matches!(
                f["kind"].as_str(),
                Some("not-verified" | "syntax-error" | "data-race")
            )
        });
        let verified = kernels.iter().any(|(_, s)| s == "verified");
        if verified || !explained {
            problems.push(format!(
                "{name}: kernels {kernels:?}, findings {findings:#?}"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "unsupported C++ verified or unexplained:\n{}",
        problems.join("\n")
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// 150 mutated corpus kernels (the fuzzer's first mutations), checked in
/// batches of 5 by the real binary: no crash, a JSON report or exit 2. The
/// analysis itself meets 300 more mutations, with stricter checks on its
/// reports, in `tests/fuzz_fallback.rs` (and libFuzzer's in `.ci/fuzz`);
/// this test is for the binary around it (decoding, batching, the report).
#[test]
fn mutated_corpus_kernels_never_crash_the_cli() {
    let d = temp_dir("mutated");
    let seeds = fuzz::seeds("analyze");
    let mut rng = Rng(0xC0FFEE);
    let mut paths = Vec::new();
    for i in 0..150 {
        let seed = &seeds[rng.below(seeds.len())];
        paths.push(write(
            &d,
            &format!("m{i:03}.cu"),
            fuzz::mutate(seed, &mut rng),
        ));
    }
    let mut slowest = Duration::ZERO;
    let mut files = 0;
    for batch in paths.chunks(5) {
        let mut args = vec!["--format=json", "--timeout-ms=1000"];
        args.extend(batch.iter().map(String::as_str));
        let r = check(&args);
        slowest = slowest.max(r.took);
        if r.code != 2 {
            let v: Value = serde_json::from_str(&r.stdout).expect("JSON report");
            assert!(v["findings"].is_array() && v["kernels"].is_array());
        }
        files += batch.len();
    }
    assert_eq!(files, 150);
    eprintln!("150 mutated corpus files in batches of 5: slowest batch {slowest:?}");
    let _ = std::fs::remove_dir_all(&d);
}
