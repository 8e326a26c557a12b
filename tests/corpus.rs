//! The corpus: every kernel's verdict and findings match its inline
//! expectations, and its extracted model matches the reviewed snapshot.

use syncscope_tests::*;

/// A corpus file analysed with the options its expectations select.
struct Analysed {
    path: std::path::PathBuf,
    text: String,
    options: syncscope_core::Options,
    report: syncscope_core::FileReport,
}

fn analysed(path: &std::path::Path) -> Analysed {
    let text = std::fs::read_to_string(path).expect("corpus file is UTF-8");
    let options = options_for(&expectations(&text));
    let report = syncscope_core::analyze_source(&text, &options);
    Analysed {
        path: path.to_path_buf(),
        text,
        options,
        report,
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
            cuda_arch: a.options.cuda_arch,
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
