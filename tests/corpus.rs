//! The corpus: every kernel's verdict and findings match its inline
//! expectations, and its extracted model matches the reviewed snapshot.

use syncscope_tests::*;

fn run_dir(dir: &std::path::Path) -> (usize, Vec<String>) {
    let files = cu_files(dir);
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("corpus file is UTF-8");
        let e = expectations(&text);
        let report = syncscope_core::analyze_source(&text, &options_for(&e));
        let problems = check_expectations(&e, &report);
        if !problems.is_empty() {
            failures.push(format!("{}:\n  {}", path.display(), problems.join("\n  ")));
        }
    }
    (files.len(), failures)
}

#[test]
fn corpus_verdicts_and_findings_match_expectations() {
    let (n, failures) = run_dir(&corpus_dir());
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
    let (n, failures) = run_dir(&examples_dir());
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
