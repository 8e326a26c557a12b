//! Every sample command in README.md and docs/*.md is true: a fenced code
//! block whose first line starts with `$ syncscope ` is run against the real
//! binary (from the repository root, without colour) and what it prints
//! (stdout, then stderr) must be the rest of the block. A block may hold
//! several commands, each introduced by `$ `. Two wildcards keep samples
//! readable where the text is not the point: a line `...` matches any number
//! of lines, and `[..]` inside a line matches any text on that line.
//!
//! After a deliberate change of output, `SYNCSCOPE_BLESS=1 cargo test -p
//! syncscope --test docs_truth` writes what the binary prints into the
//! documents (samples without wildcards only), for review with `git diff`.
//!
//! The example files' header comments name the command that checks them
//! (`//   syncscope check examples/NAME.cu`; the launch comes from the
//! file's own `// syncscope-args:` line).

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

/// One `$ syncscope ...` command of a document and the text shown for it.
#[derive(Debug)]
struct Sample {
    doc: String,
    line: usize,
    args: Vec<String>,
    expected: Vec<String>,
}

/// The samples of a Markdown document.
fn samples(doc: &str, text: &str) -> Vec<Sample> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((_, l)) = lines.next() {
        if !l.trim_start().starts_with("```") {
            continue;
        }
        let mut block = Vec::new();
        for (n, l) in lines.by_ref() {
            if l.trim_start().starts_with("```") {
                break;
            }
            block.push((n + 1, l));
        }
        if !block
            .first()
            .is_some_and(|(_, l)| l.starts_with("$ syncscope "))
        {
            continue;
        }
        for (n, l) in block {
            if let Some(cmd) = l.strip_prefix("$ ") {
                out.push(Sample {
                    doc: doc.to_string(),
                    line: n,
                    args: cmd.split_whitespace().skip(1).map(str::to_string).collect(),
                    expected: Vec::new(),
                });
            } else if let Some(s) = out.last_mut() {
                s.expected.push(l.to_string());
            }
        }
    }
    out
}

/// Whether `line` matches `pattern` (`[..]` matches any text).
fn line_matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[..]").collect();
    if parts.len() == 1 {
        return pattern == line;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !line.starts_with(first) || !line[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &line[first.len()..line.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// Whether `actual` matches `expected` (`...` lines match any lines).
fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e == "..." => (0..=actual.len()).any(|k| matches(rest, &actual[k..])),
        Some((e, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| line_matches(e, a) && matches(rest, more)),
    }
}

fn run(args: &[String]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_syncscope"))
        .args(args)
        .current_dir(repo_root())
        .env("NO_COLOR", "1")
        .output()
        .expect("run syncscope");
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Trailing blank lines of a sample (Markdown) and of an output do not count.
fn trimmed(lines: &[String]) -> &[String] {
    let end = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(0, |i| i + 1);
    &lines[..end]
}

fn check_sample(s: &Sample) -> Result<(), String> {
    check_output(s, &run(&s.args))
}

fn check_output(s: &Sample, actual: &str) -> Result<(), String> {
    let actual: Vec<&str> = actual.trim_end().lines().collect();
    if matches(trimmed(&s.expected), &actual) {
        Ok(())
    } else {
        Err(format!(
            "{}:{}: `syncscope {}` prints something else; the document shows\n{}\n---- the binary prints ----\n{}\n",
            s.doc,
            s.line,
            s.args.join(" "),
            s.expected.join("\n"),
            actual.join("\n")
        ))
    }
}

fn documents() -> Vec<(String, String)> {
    let root = repo_root();
    let mut docs = vec![root.join("README.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs.into_iter()
        .map(|p| {
            let name = p.strip_prefix(&root).unwrap_or(&p).display().to_string();
            (name, std::fs::read_to_string(&p).expect("read a document"))
        })
        .collect()
}

#[test]
fn every_sample_output_in_the_docs_is_what_the_binary_prints() {
    let all: Vec<Sample> = documents()
        .iter()
        .flat_map(|(name, text)| samples(name, text))
        .collect();
    for doc in ["README.md", "docs/diagnostics.md"] {
        assert!(
            all.iter().any(|s| s.doc == doc),
            "{doc} has no `$ syncscope` sample"
        );
    }
    let outputs: Vec<String> = all.iter().map(|s| run(&s.args)).collect();
    let problems: Vec<String> = all
        .iter()
        .zip(&outputs)
        .filter_map(|(s, out)| check_output(s, out).err())
        .collect();
    if !problems.is_empty() && std::env::var_os("SYNCSCOPE_BLESS").is_some() {
        bless(&all, &outputs);
        eprintln!(
            "SYNCSCOPE_BLESS: wrote the binary's output into the documents; review with git diff"
        );
        return;
    }
    assert!(
        problems.is_empty(),
        "{} of {} samples drifted from the binary:\n\n{}",
        problems.len(),
        all.len(),
        problems.join("\n")
    );
    eprintln!("{} samples checked", all.len());
}

/// Replaces the shown output of every drifted sample without wildcards by
/// what the binary printed.
fn bless(all: &[Sample], outputs: &[String]) {
    let root = repo_root();
    let mut docs: Vec<&str> = all.iter().map(|s| s.doc.as_str()).collect();
    docs.dedup();
    for doc in docs {
        let path = root.join(doc);
        let text = std::fs::read_to_string(&path).expect("read a document");
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        // From the end, so that earlier line numbers stay valid.
        for (s, out) in all.iter().zip(outputs).filter(|(s, _)| s.doc == doc).rev() {
            let wildcards = s.expected.iter().any(|l| l == "..." || l.contains("[..]"));
            if wildcards || check_output(s, out).is_ok() {
                continue;
            }
            let shown = trimmed(&s.expected).len();
            let new: Vec<String> = out.trim_end().lines().map(str::to_string).collect();
            lines.splice(s.line..s.line + shown, new);
        }
        let mut text_out = lines.join("\n");
        text_out.push('\n');
        std::fs::write(&path, text_out).expect("write a document");
    }
}

#[test]
fn a_sample_that_drifts_from_the_binary_fails() {
    let (doc, text) = documents()
        .into_iter()
        .find(|(d, _)| d == "README.md")
        .expect("README.md");
    let mut sample = samples(&doc, &text)
        .into_iter()
        .find(|s| s.expected.len() > 2)
        .expect("a README sample with output");
    assert!(check_sample(&sample).is_ok());
    // One changed character anywhere in the shown output is drift.
    let i = sample
        .expected
        .iter()
        .position(|l| l.len() > 3 && l != "...")
        .expect("a line to change");
    sample.expected[i].push('!');
    let err = check_sample(&sample).expect_err("drift must fail");
    assert!(err.contains("prints something else"), "{err}");
}

#[test]
fn wildcards_match_only_what_they_stand_for() {
    assert!(line_matches("a [..] c", "a b b c"));
    assert!(!line_matches("a [..] c", "a b b d"));
    assert!(line_matches("x", "x") && !line_matches("x", "y"));
    let e = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(matches(&e(&["a", "...", "z"]), &["a", "b", "c", "z"]));
    assert!(matches(&e(&["a", "...", "z"]), &["a", "z"]));
    assert!(!matches(&e(&["a", "...", "z"]), &["a", "b"]));
    assert!(!matches(&e(&["a"]), &["a", "b"]));
}

#[test]
fn example_headers_name_the_command_the_corpus_test_runs() {
    let root = repo_root();
    let mut problems = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("examples"))
        .expect("examples/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for p in files {
        let text = std::fs::read_to_string(&p).expect("read an example");
        let name = format!(
            "examples/{}",
            p.file_name().unwrap_or_default().to_string_lossy()
        );
        let want = format!("syncscope check {name}");
        let shown = text.lines().find_map(|l| {
            l.strip_prefix("//")
                .map(str::trim)
                .filter(|l| l.starts_with("syncscope "))
        });
        if shown != Some(want.as_str()) {
            problems.push(format!(
                "{name}: header shows {shown:?}, the test runs `{want}`"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
