//! `syncscope equiv` on the pairs of `tests/corpus/equiv/MANIFEST`: each
//! pair's verdict, exit status and, for a counterexample, that it shows a
//! location where the two versions leave different values.

use syncscope_core::equiv::{
    check_equivalence_with, EquivOptions, EquivReport, Outside, Verdict, Version,
};
use syncscope_core::project::{Disk, SearchPaths};
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
/// to the corpus), `first` as version A, each file in its project (the
/// corpus folder) as `check` reads it; `assoc` as `--assoc`.
fn compare(first: &str, second: &str, assoc: bool) -> EquivReport {
    let load = |spec: &str| {
        let (path, kernel) = spec.rsplit_once(':').expect("FILE:KERNEL");
        let full = syncscope_tests::corpus_dir().join(path);
        let text = std::fs::read_to_string(&full).expect("a corpus file");
        (path.to_string(), full, text, kernel.to_string())
    };
    let (a, b) = (load(first), load(second));
    let options = Options::default();
    let search = SearchPaths::default();
    fn version<'a>(
        v: &'a (String, std::path::PathBuf, String, String),
        options: &'a Options,
        search: &'a SearchPaths,
    ) -> Version<'a> {
        Version {
            label: &v.0,
            path: Some(&v.1),
            text: &v.2,
            kernel: &v.3,
            options,
            search,
        }
    }
    check_equivalence_with(
        &version(&a, &options, &search),
        &version(&b, &options, &search),
        &Disk,
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
            // Proved under the condition (queries), refuted outside it: a
            // real difference on a block the condition excludes.
            Verdict::Conditional {
                condition,
                outside: Outside::Differs(outside),
            } => {
                let x = outside.block_dim[0];
                let power_of_two = x >= 1 && x & (x - 1) == 0;
                if report.queries == 0
                    || outside.value_a == outside.value_b
                    || (condition.contains("power of two") && power_of_two)
                {
                    failures.push(format!(
                        "{} vs {}: `{condition}` not proved or not refuted outside: {outside:?}",
                        p.a, p.b
                    ));
                }
            }
            // Proved under each launch where the condition holds; under the
            // others a version's result is undefined in CUDA, and the
            // reason says which and why.
            Verdict::Conditional {
                condition,
                outside: Outside::Undefined(why),
            } => {
                if report.queries == 0
                    || !why.contains("undefined")
                    || p.reason.as_ref().is_some_and(|r| !why.contains(r.as_str()))
                {
                    failures.push(format!(
                        "{} vs {}: `{condition}` not proved, or the launches outside it not named as undefined: {why}",
                        p.a, p.b
                    ));
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
    // A conditional equivalence has its own exit status (3), never 0, and
    // its condition and the difference outside it in the JSON report.
    let serial = spec("equiv/reduce_naive.cu", "block_sum");
    let any_block = spec("equiv/reduce_tree_any_block.cu", "block_sum");
    let args =
        syncscope::cli::parse_equiv_args(&[&serial, &any_block, "--format", "json", "--assoc"])
            .expect("args");
    let mut out = Vec::new();
    assert_eq!(syncscope::cli::equiv(&args, &mut out), 3);
    let json: serde_json::Value = serde_json::from_slice(&out).expect("JSON output");
    assert_eq!(json["verdict"], "conditional", "{json}");
    assert!(
        json["condition"]
            .as_str()
            .is_some_and(|c| c.contains("power of two")),
        "{json}"
    );
    assert_eq!(json["counterexample"]["block_dim"][0], 3, "{json}");
    // Conditional because the launches outside the condition leave a
    // result undefined (shuffles reading lanes of no thread): exit 3, the
    // condition, and the reason in place of a counterexample.
    let tree = spec("../projects/equiv_warp_switch/sum_tree.cu", "sum_tree");
    let warp = spec("../projects/equiv_warp_switch/sum_warp.cu", "sum_warp");
    let args = syncscope::cli::parse_equiv_args(&[&tree, &warp, "--format", "json", "--assoc"])
        .expect("args");
    let mut out = Vec::new();
    assert_eq!(syncscope::cli::equiv(&args, &mut out), 3);
    let json: serde_json::Value = serde_json::from_slice(&out).expect("JSON output");
    assert_eq!(json["verdict"], "conditional", "{json}");
    assert_eq!(
        json["condition"]
            .as_str()
            .map(|c| c.starts_with("blockDim.x >= 32")),
        Some(true),
        "{json}"
    );
    assert!(json["counterexample"].is_null(), "{json}");
    assert!(
        json["reason"]
            .as_str()
            .is_some_and(|r| r.contains("undefined in CUDA")),
        "{json}"
    );
    let missing = syncscope::cli::parse_equiv_args(&[&naive, "no-such-file.cu:k"]).expect("args");
    assert_eq!(syncscope::cli::equiv(&missing, &mut Vec::new()), 2);
}

/// `syncscope equiv` takes `check`'s options and reads each file as `check`
/// does (tests/projects/equiv*: a tile size from a header found with `-I`,
/// a block size from syncscope.toml and from a header next to the file),
/// one case a row: the arguments, the exit status, the verdict and a
/// fragment of the JSON report (its reason or the launch compared under).
#[test]
fn equiv_reads_files_as_check_does() {
    let project = |f: &str| {
        syncscope_tests::projects_dir()
            .join(f)
            .display()
            .to_string()
    };
    let corpus = |f: &str| syncscope_tests::corpus_dir().join(f).display().to_string();
    let naive = format!("{}:transpose", project("equiv/src/transpose_naive.cu"));
    let tiled = format!("{}:transpose", project("equiv/src/transpose_tiled.cu"));
    let include = project("equiv/include");
    let scale = format!("{}:scale", project("equiv_config/scale_naive.cu"));
    let scale_blocked = format!("{}:scale", project("equiv_config/scale_blocked.cu"));
    let no_launch = project("equiv_config/no-launch.toml");
    let transpose = format!("{}:transpose", corpus("equiv/transpose_naive.cu"));
    let transpose_tiled = format!("{}:transpose", corpus("equiv/transpose_tiled.cu"));
    let lockstep = format!(
        "{}:reduce_warp_unrolled_lockstep",
        corpus("patterns/warp_tail_lockstep.cu")
    );
    let cases: Vec<(Vec<&str>, i32, &str, &str)> = vec![
        (vec![&naive, &tiled, "-I", &include], 0, "equivalent", ""),
        // Without the header neither file is the program its build
        // compiles: refused, never "equivalent".
        (vec![&naive, &tiled], 2, "refused", "not found"),
        (
            vec![&scale, &scale_blocked],
            0,
            "equivalent",
            "block (256,1,1)",
        ),
        // A `[[kernel]]` entry of syncscope.toml wins over --block-dim, as
        // in `check`.
        (
            vec![&scale, &scale_blocked, "--block-dim", "128"],
            0,
            "equivalent",
            "block (256,1,1)",
        ),
        (
            vec![
                &scale,
                &scale_blocked,
                "--config",
                &no_launch,
                "--block-dim",
                "128",
            ],
            1,
            "not-equivalent",
            "block (128,1,1)",
        ),
        // With no launch fixed, scale_blocked.cu's blocks overlap, but the
        // threads of one cell write one value (`2.0f * in[i]` of a read-only
        // `in`: a benign race), so the two are compared: the blocked one
        // leaves cells unwritten under blocks other than 256 threads.
        (
            vec![&scale, &scale_blocked, "--config", &no_launch],
            1,
            "not-equivalent",
            "not written",
        ),
        (
            vec![&transpose, &transpose_tiled, "--warp-sync"],
            0,
            "equivalent",
            "",
        ),
        // The tiled version requires 16 x 16 blocks: under 32 x 8 no launch
        // is left, and a proof would hold vacuously.
        (
            vec![&transpose, &transpose_tiled, "--block-dim", "32,8"],
            2,
            "refused",
            "vacuously",
        ),
        (
            vec![&transpose, &transpose_tiled, "--bitvector"],
            2,
            "refused",
            "--bitvector",
        ),
        // Race-free only with lockstep warps (its own --warp-sync line).
        (vec![&lockstep, &lockstep], 2, "refused", "lockstep"),
    ];
    let mut failures = Vec::new();
    for (args, status, verdict, fragment) in &cases {
        let mut argv = args.clone();
        argv.extend(["--format", "json"]);
        let parsed = syncscope::cli::parse_equiv_args(&argv).expect("equiv arguments");
        let mut out = Vec::new();
        let code = syncscope::cli::equiv(&parsed, &mut out);
        let json: serde_json::Value = serde_json::from_slice(&out).expect("JSON output");
        let text = json.to_string();
        if code != *status || json["verdict"] != *verdict || !text.contains(fragment) {
            failures.push(format!(
                "{args:?}: expected {verdict} (exit {status}) with `{fragment}`, got exit {code}: {text}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
