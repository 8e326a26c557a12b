//! `syncscope equiv` on the pairs of `tests/corpus/equiv/MANIFEST`: each
//! pair's verdict, exit status and, for a counterexample, that it shows a
//! location where the two versions leave different values.

use syncscope_core::equiv::{check_equivalence_with, EquivOptions, EquivReport, Verdict, Version};
use syncscope_core::Options;

struct Pair {
    expected: String,
    a: String,
    b: String,
    /// `--assoc` on the line.
    assoc: bool,
    reason: Option<String>,
}

fn pairs() -> Vec<Pair> {
    let manifest = syncscope_tests::corpus_dir().join("equiv/MANIFEST");
    let text = std::fs::read_to_string(&manifest).expect("the equivalence manifest");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            assert!(w.len() >= 3, "bad manifest line `{l}`");
            let options = w[3..].iter().take_while(|x| x.starts_with("--")).count();
            for o in &w[3..3 + options] {
                assert_eq!(*o, "--assoc", "unknown option in `{l}`");
            }
            let rest = 3 + options;
            Pair {
                expected: w[0].to_string(),
                a: w[1].to_string(),
                b: w[2].to_string(),
                assoc: options > 0,
                reason: (w.len() > rest).then(|| w[rest..].join(" ")),
            }
        })
        .collect()
}

/// `syncscope equiv` on two corpus kernels (`FILE:KERNEL`, FILE relative
/// to the corpus), `first` as version A.
fn compare(first: &str, second: &str, assoc: bool) -> EquivReport {
    let load = |spec: &str| {
        let (path, kernel) = spec.rsplit_once(':').expect("FILE:KERNEL");
        let text = std::fs::read_to_string(syncscope_tests::corpus_dir().join(path))
            .expect("a corpus file");
        (path.to_string(), text, kernel.to_string())
    };
    let (a, b) = (load(first), load(second));
    fn version(v: &(String, String, String)) -> Version<'_> {
        Version {
            label: &v.0,
            text: &v.1,
            kernel: &v.2,
        }
    }
    check_equivalence_with(
        &version(&a),
        &version(&b),
        &Options::default(),
        &EquivOptions { assoc },
    )
}

#[test]
fn manifest_pairs_have_their_verdicts() {
    let pairs = pairs();
    assert!(pairs.len() >= 12, "only {} pairs", pairs.len());
    let mut failures = Vec::new();
    for p in &pairs {
        let report = compare(&p.a, &p.b, p.assoc);
        let got = report.verdict.name();
        if got != p.expected {
            failures.push(format!(
                "{} vs {}{}: expected {}, got {:?}",
                p.a,
                p.b,
                if p.assoc { " --assoc" } else { "" },
                p.expected,
                report.verdict
            ));
            continue;
        }
        match &report.verdict {
            Verdict::Different(c) => {
                let init = |v: Option<i64>| v.is_some();
                if c.value_a == c.value_b || !(init(c.value_a) || init(c.value_b)) {
                    failures.push(format!(
                        "{} vs {}: counterexample without a difference: {c:?}",
                        p.a, p.b
                    ));
                }
                if c.block_dim.iter().chain(&c.grid_dim).any(|d| *d < 1) {
                    failures.push(format!("{} vs {}: no launch in {c:?}", p.a, p.b));
                }
            }
            Verdict::Unknown(why) | Verdict::Refused(why) => {
                if let Some(r) = &p.reason {
                    if !why.contains(r.as_str()) {
                        failures.push(format!("{} vs {}: reason `{why}` lacks `{r}`", p.a, p.b));
                    }
                }
            }
            Verdict::Equivalent => {
                if report.queries == 0 {
                    failures.push(format!("{} vs {}: equivalent without a query", p.a, p.b));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Equivalence is symmetric: swapping the versions keeps the verdict.
#[test]
fn swapped_pairs_keep_their_verdicts() {
    for p in pairs().iter().filter(|p| p.expected != "refused") {
        let report = compare(&p.b, &p.a, p.assoc);
        assert_eq!(
            report.verdict.name(),
            p.expected,
            "{} vs {} swapped: {:?}",
            p.b,
            p.a,
            report.verdict
        );
    }
}

/// The CLI's exit statuses and JSON output.
#[test]
fn cli_exit_status_and_json() {
    let dir = syncscope_tests::corpus_dir();
    let spec = |f: &str, k: &str| format!("{}:{k}", dir.join(f).display());
    let naive = spec("equiv/transpose_naive.cu", "transpose");
    for (other, kernel, status, verdict) in [
        ("equiv/transpose_tiled.cu", "transpose", 0, "equivalent"),
        (
            "equiv/transpose_bug_tile_read.cu",
            "transpose",
            1,
            "not-equivalent",
        ),
        // Parameters of other numbers and types: not matched, refused.
        ("equiv/matmul_tiled.cu", "matmul", 2, "refused"),
    ] {
        let b = spec(other, kernel);
        let args =
            syncscope::cli::parse_equiv_args(&[&naive, &b, "--format", "json"]).expect("args");
        let mut out = Vec::new();
        let code = syncscope::cli::equiv(&args, &mut out);
        assert_eq!(code, status, "{other}");
        let json: serde_json::Value = serde_json::from_slice(&out).expect("JSON output");
        assert_eq!(json["verdict"], verdict, "{other}: {json}");
        if verdict == "not-equivalent" {
            assert!(json["counterexample"]["array"].is_string(), "{json}");
        }
    }
    // `--assoc`: the tree reduction proved, the assumption and the
    // parameter matching reported.
    let interleaved = spec("pug/reduction_interleaved.cu", "reduce_interleaved");
    let strided = spec("pug/reduction_strided.cu", "reduce_strided");
    for (flags, status, verdict) in [
        (&["--format", "json", "--assoc"][..], 0, "equivalent"),
        (&["--format", "json"][..], 1, "unknown"),
    ] {
        let mut argv = vec![interleaved.as_str(), strided.as_str()];
        argv.extend_from_slice(flags);
        let args = syncscope::cli::parse_equiv_args(&argv).expect("args");
        let mut out = Vec::new();
        assert_eq!(syncscope::cli::equiv(&args, &mut out), status, "{flags:?}");
        let json: serde_json::Value = serde_json::from_slice(&out).expect("JSON output");
        assert_eq!(json["verdict"], verdict, "{json}");
        let notes = json["notes"].to_string();
        assert!(
            notes.contains("parameters matched by position: g_odata ↔ out"),
            "{json}"
        );
        assert_eq!(
            notes.contains("--assoc"),
            flags.contains(&"--assoc"),
            "{json}"
        );
    }
    let missing = syncscope::cli::parse_equiv_args(&[&naive, "no-such-file.cu:k"]).expect("args");
    assert_eq!(syncscope::cli::equiv(&missing, &mut Vec::new()), 2);
}
