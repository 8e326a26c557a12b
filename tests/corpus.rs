//! The corpus: every kernel's verdict and findings match its inline
//! expectations, its extracted model matches the reviewed snapshot, and
//! the JSON report `syncscope check` prints for it follows the contract.
//! Each file is analysed once, through the CLI's own path, for every test
//! here that reads a report.

use serde_json::Value;
use std::path::{Path, PathBuf};
use syncscope_tests::*;

/// A corpus file analysed as `syncscope check` with the fixture's
/// `syncscope-args` analyses it ([`project_flags`] through
/// `syncscope::cli::results`, the CLI's own path from arguments to reports),
/// with the JSON report `--format=json` prints and the exit status.
struct Analysed {
    path: PathBuf,
    text: String,
    /// The options the fixture's arguments select (for lowering the models
    /// the replay test reads).
    options: syncscope_core::Options,
    report: syncscope_core::FileReport,
    /// The architecture the CLI's options name (the human report's notes).
    cuda_arch: u32,
    json: String,
    exit: i32,
}

fn analysed(path: &Path) -> Analysed {
    let text = std::fs::read_to_string(path).expect("corpus file is UTF-8");
    let e = expectations(&text);
    let flags = project_flags(&e, path);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let mut args = syncscope::cli::parse_check_args(&flags)
        .unwrap_or_else(|err| panic!("{}: syncscope-args: {err}", path.display()));
    args.paths = vec![path.to_path_buf()];
    let (results, io_errors) = syncscope::cli::results(&args);
    let exit = syncscope::cli::exit_status(&results, &io_errors, &args.fail_policy());
    assert!(io_errors.is_empty(), "{}: {io_errors:?}", path.display());
    let json = syncscope::output::json(&results);
    let [result] = <[_; 1]>::try_from(results)
        .unwrap_or_else(|r| panic!("{}: {} results for one file", path.display(), r.len()));
    Analysed {
        path: path.to_path_buf(),
        text,
        options: options_for(&e),
        report: result.report,
        cuda_arch: result.cuda_arch,
        json,
        exit,
    }
}

/// Every corpus file analysed once for the tests of this binary that read
/// the reports (the corpus is this suite's largest analysis: two tests
/// analysing it each took about two minutes), files on every core, in the
/// corpus's order.
fn corpus_reports() -> &'static [Analysed] {
    static REPORTS: std::sync::OnceLock<Vec<Analysed>> = std::sync::OnceLock::new();
    REPORTS.get_or_init(|| on_every_core(&cu_files(&corpus_dir()), |_, path| analysed(path)))
}

/// What is wrong with one analysed file: its expectations, and the human
/// report's line width.
fn problems_of(a: &Analysed) -> Vec<String> {
    let mut problems = check_expectations(&expectations(&a.text), &a.report);
    // Issue 32: the human report keeps to 80 columns (a quoted source
    // line, a path or an expression too wide for any line excepted).
    let human = syncscope::output::human(
        &[syncscope::output::FileResult {
            path: a.path.clone(),
            text: a.text.clone(),
            report: a.report.clone(),
            cuda_arch: a.cuda_arch,
        }],
        false,
    );
    problems.extend(
        overlong_lines(&human)
            .into_iter()
            .map(|l| format!("human line over 80 columns: {l}")),
    );
    problems
}

fn failures_of<'a>(files: impl Iterator<Item = &'a Analysed>) -> (usize, Vec<String>) {
    let mut n = 0;
    let mut failures = Vec::new();
    for a in files {
        n += 1;
        let problems = problems_of(a);
        if !problems.is_empty() {
            failures.push(format!(
                "{}:\n  {}",
                a.path.display(),
                problems.join("\n  ")
            ));
        }
    }
    (n, failures)
}

#[test]
fn corpus_verdicts_and_findings_match_expectations() {
    let (n, failures) = failures_of(corpus_reports().iter());
    assert!(n >= 40, "the corpus has {n} files, expected at least 40");
    assert!(
        failures.is_empty(),
        "{} of {n} corpus files fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn check_range(r: &Value) {
    for end in ["start", "end"] {
        let line = r[end]["line"].as_u64().expect("1-based line");
        let col = r[end]["column"].as_u64().expect("1-based column");
        assert!(line >= 1 && col >= 1, "positions are 1-based: {r}");
    }
}

/// The JSON report of one corpus file follows the contract, and its
/// statuses and exit status are the expected ones; the number of kernels
/// it reports.
fn json_contract_of(a: &Analysed) -> usize {
    let mut kernels_seen = 0;
    let path = &a.path;
    let e = expectations(&a.text);
    let code = a.exit;
    let p = path.to_string_lossy().into_owned();
    let v: Value = serde_json::from_str(&a.json).unwrap_or_else(|err| {
        panic!(
            "{}: the report is not one JSON object ({err}): {}",
            path.display(),
            a.json
        )
    });
    let findings = v["findings"].as_array().expect("findings array");
    let kernels = v["kernels"].as_array().expect("kernels array");
    let mut has_error = false;
    for f in findings {
        let kind = f["kind"].as_str().expect("kind");
        assert!(
            syncscope_core::FindingKind::from_code(kind).is_some(),
            "{kind}"
        );
        let sev = f["severity"].as_str().expect("severity");
        assert!(["error", "warning", "information", "hint"].contains(&sev));
        has_error |= sev == "error";
        assert_eq!(f["file"].as_str(), Some(p.as_str()));
        assert!(f["message"].as_str().is_some_and(|m| !m.is_empty()));
        check_range(&f["range"]);
        for r in f["related"].as_array().expect("related list") {
            check_range(&r["range"]);
            assert!(r["message"].is_string() && r["file"].is_string());
        }
        if kind == "assertion" {
            // One thread, or two for a two-thread predicate.
            let threads = f["witness"]["threads"].as_array().expect("witness threads");
            assert!((1..=2).contains(&threads.len()));
        }
        if kind == "data-race" || kind == "benign-race" || kind == "barrier-divergence" {
            let w = &f["witness"];
            let threads = w["threads"].as_array().expect("two witness threads");
            assert_eq!(threads.len(), 2);
            for t in threads {
                assert_eq!(t["threadIdx"].as_array().map(|a| a.len()), Some(3));
                assert_eq!(t["blockIdx"].as_array().map(|a| a.len()), Some(3));
            }
            let values = w["values"].as_object().expect("witness values");
            assert!(values.contains_key("blockDim.x") && values.contains_key("gridDim.x"));
            if kind == "data-race" {
                assert!(values.contains_key("index"), "a race names its index");
                // One finding per missing barrier: every racing pair is
                // listed, and `related` holds the later access of each.
                let pairs = f["pairs"].as_array().expect("racing pairs");
                assert!(!pairs.is_empty());
                for pair in pairs {
                    for side in ["first", "second"] {
                        check_range(&pair[side]["range"]);
                        assert!(pair[side]["text"].is_string());
                    }
                }
                assert_eq!(
                    f["related"].as_array().map(|r| r.len()),
                    Some(pairs.len()),
                    "one related access per racing pair"
                );
            }
        }
    }
    for k in kernels {
        kernels_seen += 1;
        assert!(k["name"].is_string() && k["millis"].is_u64() && k["file"].is_string());
        let status = k["status"].as_str().expect("status");
        assert!([
            "verified",
            "racy",
            "divergent",
            "unknown",
            "not-verified",
            "assertion-failed"
        ]
        .contains(&status));
        assert_eq!(
            Some(status),
            e.kernels
                .get(k["name"].as_str().unwrap_or(""))
                .map(String::as_str),
            "{}: kernel {}",
            path.display(),
            k["name"]
        );
    }
    assert_eq!(
        code,
        if has_error { 1 } else { 0 },
        "{}: exit status",
        path.display()
    );
    kernels_seen
}

#[test]
fn json_report_follows_the_contract_on_every_corpus_kernel() {
    let kernels_seen: usize = corpus_reports().iter().map(json_contract_of).sum();
    assert!(kernels_seen >= 40, "{kernels_seen} kernels");
}

#[test]
fn examples_match_their_expectations() {
    let examples: Vec<Analysed> = cu_files(&examples_dir())
        .iter()
        .map(|p| analysed(p))
        .collect();
    let (n, failures) = failures_of(examples.iter());
    assert!(n >= 3, "expected at least 3 examples, found {n}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn corpus_models_match_snapshots() {
    insta::glob!("corpus/**/*.cu", |path| {
        let text = std::fs::read_to_string(path).expect("corpus file is UTF-8");
        let e = expectations(&text);
        let options = options_for(&e);
        let tree = syncscope_core::parse(&text, None);
        let models: Vec<String> = syncscope_core::frontend::lower_file(&text, &tree, &options)
            .iter()
            .map(syncscope_core::model::render)
            .collect();
        insta::assert_snapshot!(models.join("\n"));
    });
}

/// Issue 17: every race and divergence the corpus reports is a definite
/// finding. Its witness names two distinct threads inside the launch it
/// gives; the accesses (or the barrier) it is about depend on no function
/// or name the front end cannot see, so the engine's replay ran on concrete
/// values for every name; and where an access's index and guard use only
/// thread and block indices, launch sizes and parameters, evaluating them
/// here under the witness's values gives the colliding index.
#[test]
fn every_race_and_divergence_replays_with_concrete_values() {
    use syncscope_core::model::{self, Expr, Var, VarKind, DIMS};
    fn eval(e: &Expr, get: &dyn Fn(&Var) -> Option<i64>) -> Option<i64> {
        Some(match e {
            Expr::Const(c) => *c,
            Expr::Var(v) => get(v)?,
            Expr::Un(op, a) => {
                let x = eval(a, get)?;
                match op {
                    model::UnOp::Neg => x.checked_neg()?,
                    model::UnOp::Not => (x == 0) as i64,
                    model::UnOp::BitNot => !x,
                }
            }
            Expr::Bin(op, a, b) => model::fold(*op, eval(a, get)?, eval(b, get)?)?,
            Expr::Ite(c, a, b) => {
                if eval(c, get)? != 0 {
                    eval(a, get)?
                } else {
                    eval(b, get)?
                }
            }
            Expr::Pow2(a) => 1i64.checked_shl(u32::try_from(eval(a, get)?).ok()?)?,
        })
    }
    let mut checked = (0, 0);
    let mut problems = Vec::new();
    for Analysed {
        path,
        text,
        options,
        report,
        ..
    } in corpus_reports()
    {
        let tree = syncscope_core::parse(text, None);
        let options = syncscope_core::options::with_file_directives(text, options);
        let kernels = syncscope_core::frontend::lower_file(text, &tree, &options);
        for f in &report.findings {
            let race = f.kind == syncscope_core::FindingKind::DataRace;
            if !race && f.kind != syncscope_core::FindingKind::BarrierDivergence {
                continue;
            }
            let at = format!("{}:{}", path.display(), f.span.start.line + 1);
            let Some(k) = kernels.iter().find(|k| Some(&k.name) == f.kernel.as_ref()) else {
                problems.push(format!("{at}: no model for the finding's kernel"));
                continue;
            };
            let Some(w) = &f.witness else {
                problems.push(format!("{at}: no witness"));
                continue;
            };
            let size = |n: &str| w.value(n).unwrap_or(1);
            let inside = w.threads.len() == 2
                && w.threads[0] != w.threads[1]
                && w.threads.iter().all(|t| {
                    (0..3).all(|d| {
                        (0..size(&format!("blockDim.{}", DIMS[d]))).contains(&t.thread_idx[d])
                            && (0..size(&format!("gridDim.{}", DIMS[d]))).contains(&t.block_idx[d])
                    })
                });
            if !inside {
                problems.push(format!(
                    "{at}: witness threads are not two threads of its launch: {w:?}"
                ));
            }
            let mut exprs: Vec<Expr> = Vec::new();
            let mut sides = Vec::new();
            if race {
                checked.0 += 1;
                // The witness is of the first racing pair.
                let spans: Vec<_> = match f.pairs.first() {
                    Some(p) => vec![p.first, p.second],
                    None => std::iter::once(f.span)
                        .chain(f.related.iter().map(|r| r.span))
                        .take(2)
                        .collect(),
                };
                for (t, span) in spans.into_iter().enumerate() {
                    // One statement may make several accesses (an asynchronous
                    // copy reads its source, writes its destination and uses
                    // its barrier): the one on the array the finding names.
                    let at_span: Vec<_> = k
                        .accesses()
                        .into_iter()
                        .filter(|a| a.span == span)
                        .collect();
                    let named = at_span.iter().copied().find(|a| {
                        let name = &k.arrays[a.array].name;
                        f.message.contains(&format!("`{name}["))
                            || f.message.contains(&format!("of `{name}`"))
                    });
                    match named.or(at_span.first().copied()) {
                        Some(a) => {
                            exprs.push(a.index.clone());
                            exprs.push(a.guard.clone());
                            sides.push((t, a));
                        }
                        None => problems.push(format!("{at}: no access at the finding's span")),
                    }
                }
            } else {
                checked.1 += 1;
                match k.barriers().into_iter().find(|b| b.span == f.span) {
                    Some(b) => exprs.push(b.guard.clone()),
                    None => problems.push(format!("{at}: no barrier at the finding's span")),
                }
            }
            for e in &exprs {
                let unseen = e.unseen_origins();
                if !unseen.is_empty() {
                    problems.push(format!(
                        "{at}: a definite finding depends on unseen {unseen:?}"
                    ));
                }
            }
            let Some(index) = w.value("index") else {
                continue;
            };
            // The pair's two accesses, done by the witness's two threads in
            // one order or the other: one order must replay.
            let mut orders = Vec::new();
            for swap in [false, true] {
                let mut wrong = Vec::new();
                for &(t, a) in &sides {
                    let thread = &w.threads[if swap { 1 - t } else { t }];
                    let get = |v: &Var| -> Option<i64> {
                        match v.kind {
                            VarKind::ThreadIdx(d) => Some(thread.thread_idx[d as usize]),
                            VarKind::BlockIdx(d) => Some(thread.block_idx[d as usize]),
                            VarKind::BlockDim(d) => {
                                w.value(&format!("blockDim.{}", DIMS[d as usize]))
                            }
                            VarKind::GridDim(d) => {
                                w.value(&format!("gridDim.{}", DIMS[d as usize]))
                            }
                            VarKind::Param { .. } => w.value(&v.name),
                            _ => None,
                        }
                    };
                    let (Some(i), Some(g)) = (eval(&a.index, &get), eval(&a.guard, &get)) else {
                        continue; // loop counters or memory values: the engine replayed them
                    };
                    // A wide access (bytes of a byte-addressed array) covers
                    // `index..index + width`.
                    if !(i..i + a.width).contains(&index) || g == 0 {
                        wrong.push(format!(
                            "{at}: `{}` by thread {t} of the witness gives index {i} (guard {g}), the witness says {index}",
                            a.text
                        ));
                    }
                }
                orders.push(wrong);
            }
            if orders.iter().all(|wrong| !wrong.is_empty()) {
                problems.extend(orders.swap_remove(0));
            }
        }
    }
    assert!(
        checked.0 > 50 && checked.1 > 5,
        "too few findings checked: {checked:?}"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Issue 26: every claim of the corpus holds on the simulator, and every
/// definite race or divergence replays at its witness
/// (`syncscope_tests::oracle::corpus`; `docs/reliability.md` says how).
#[test]
fn corpus_claims() {
    let files: Vec<(&Path, &str, &syncscope_core::FileReport)> = corpus_reports()
        .iter()
        .map(|a| (a.path.as_path(), a.text.as_str(), &a.report))
        .collect();
    syncscope_tests::oracle::corpus::check_corpus_claims(&files);
}
