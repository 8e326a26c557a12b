//! Helpers for the data-driven tests: corpus files carry their expectations
//! inline (see `tests/corpus/README.md`):
//! `// syncscope-args: <flags>`, `// expect-kernel: <name> <status>`, and
//! `//~ <kind>...` at the end of a line that a finding must touch.

#[path = "fuzz/harness.rs"]
pub mod fuzz;

#[path = "oracle/mod.rs"]
pub mod oracle;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syncscope_core::{FileReport, FindingKind, Options};

/// The kinds corpus files mark on lines (`//~ code`): those the core's
/// registry declares `corpus_marker`.
pub fn marked_kinds() -> impl Iterator<Item = FindingKind> {
    FindingKind::ALL
        .iter()
        .copied()
        .filter(|k| k.info().corpus_marker)
}

pub struct Expectations {
    pub flags: Vec<String>,
    pub kernels: BTreeMap<String, String>,
    /// (1-based line, kind code)
    pub markers: BTreeSet<(usize, String)>,
}

pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

pub fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// `f(i, &items[i])` for every item, on every core (each worker takes the
/// next item in turn), returned in the items' order: for the suites whose
/// files or cases are independent, so that no core idles while another
/// works through a long tail.
pub fn on_every_core<T: Sync, R: Send>(items: &[T], f: impl Fn(usize, &T) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::Mutex::new(Vec::with_capacity(items.len()));
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads.min(items.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(i, item);
                done.lock().expect("no worker panicked").push((i, r));
            });
        }
    });
    let mut done = done.into_inner().expect("no worker panicked");
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// Every `.cu` file under `dir`, sorted.
pub fn cu_files(dir: &Path) -> Vec<PathBuf> {
    files_with_extension(dir, "cu")
}

/// The test files of a project fixture folder: every `.cu` file, and
/// every header (`.cuh`, `.h`) that states what its kernels should be
/// (`// expect-kernel:`), sorted.
pub fn project_fixture_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = cu_files(dir);
    for ext in ["cuh", "h"] {
        out.extend(
            files_with_extension(dir, ext).into_iter().filter(|f| {
                std::fs::read_to_string(f).is_ok_and(|t| t.contains("// expect-kernel:"))
            }),
        );
    }
    out.sort();
    out
}

/// Every file under `dir` whose extension is `ext`, sorted.
pub fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().and_then(|x| x.to_str()) == Some(ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

pub fn expectations(text: &str) -> Expectations {
    let mut e = Expectations {
        flags: Vec::new(),
        kernels: BTreeMap::new(),
        markers: BTreeSet::new(),
    };
    for (i, line) in text.lines().enumerate() {
        // The core's own directive syntax decides what an args line is.
        if let Some(rest) = syncscope_core::directives::args_line(line) {
            e.flags.extend(rest.split_whitespace().map(str::to_string));
        }
        if let Some(rest) = line.split("// expect-kernel:").nth(1) {
            let mut parts = rest.split_whitespace();
            if let (Some(name), Some(status)) = (parts.next(), parts.next()) {
                e.kernels.insert(name.to_string(), status.to_string());
            }
        }
        if let Some(rest) = line.split("//~").nth(1) {
            for kind in rest.split_whitespace() {
                e.markers.insert((i + 1, kind.to_string()));
            }
        }
    }
    e
}

/// Solver limits for tests that assert verdicts: the wall-clock nets of the
/// defaults (`Options::default()`), stated so that a test's verdict cannot
/// depend on a default changing under it: generous, so that a loaded CI
/// machine cannot turn a slow `verified` into `unknown` (the resource
/// budget decides). Timing is the benchmarks' business
/// (`docs/benchmarks.md`), not the tests'.
pub const VERDICT_LIMITS: [&str; 2] = ["--timeout-ms=60000", "--kernel-budget-ms=120000"];

/// The options a fixture's `syncscope-args` select, read by the core's
/// directive parser (the one the analysis applies to every file), with the
/// limits of [`VERDICT_LIMITS`].
pub fn options_for(e: &Expectations) -> Options {
    let d = syncscope_core::directives::parse_args(&e.flags.join(" "));
    assert!(
        d.errors.is_empty(),
        "invalid syncscope-args: {:?}",
        d.errors
    );
    let limits = Options {
        timeout_ms: 60_000,
        kernel_budget_ms: 120_000,
        ..Options::default()
    };
    syncscope_core::options::apply_directives(&d, &limits)
}

/// Compares a report with the file's expectations; returns the mismatches.
/// Issue 30: a `schedule-dependent` finding shows its two schedules: a
/// note (and the message) for each, naming two different threads that
/// run the contended operations in opposite orders, each schedule ending
/// with its own value of one location, and the witness's two threads are
/// those threads.
fn schedules_shown(f: &syncscope_core::Finding) -> Vec<String> {
    let line = f.span.start.line + 1;
    let mut problems = Vec::new();
    let threads: Vec<String> = match &f.witness {
        Some(w) if w.threads.len() == 2 && w.threads[0] != w.threads[1] => w
            .threads
            .iter()
            .map(|t| {
                format!(
                    "thread ({},{},{}) of block ({},{},{})",
                    t.thread_idx[0],
                    t.thread_idx[1],
                    t.thread_idx[2],
                    t.block_idx[0],
                    t.block_idx[1],
                    t.block_idx[2]
                )
            })
            .collect(),
        _ => {
            return vec![format!(
                "schedule-dependent at line {line}: no two distinct witness threads"
            )]
        }
    };
    let mut ends = Vec::new();
    for (n, (a, b)) in [
        (1, (&threads[0], &threads[1])),
        (2, (&threads[1], &threads[0])),
    ] {
        let Some(note) = f
            .notes
            .iter()
            .find(|x| x.starts_with(&format!("schedule {n} ")))
        else {
            problems.push(format!(
                "schedule-dependent at line {line}: no note shows schedule {n}"
            ));
            continue;
        };
        let (pa, pb) = (note.find(a.as_str()), note.find(b.as_str()));
        if !matches!((pa, pb), (Some(x), Some(y)) if x < y) {
            problems.push(format!(
                "schedule-dependent at line {line}: schedule {n} does not run {a} before {b}: {note}"
            ));
        }
        match note.rsplit_once(" ends ") {
            Some((_, v)) if v.parse::<i64>().is_ok() => ends.push(v.to_string()),
            _ => problems.push(format!(
                "schedule-dependent at line {line}: schedule {n} names no final value: {note}"
            )),
        }
        if !f.message.contains(note.as_str()) {
            problems.push(format!(
                "schedule-dependent at line {line}: the message leaves out schedule {n}"
            ));
        }
    }
    if ends.len() == 2 && ends[0] == ends[1] {
        problems.push(format!(
            "schedule-dependent at line {line}: both schedules end with {}",
            ends[0]
        ));
    }
    problems
}

pub fn check_expectations(e: &Expectations, report: &FileReport) -> Vec<String> {
    let mut problems = Vec::new();
    for f in &report.findings {
        if f.kind == FindingKind::Unknown {
            problems.push(format!(
                "unexpected unknown at line {}: {}",
                f.span.start.line + 1,
                f.message
            ));
        }
        if !f.kind.info().corpus_marker {
            continue;
        }
        if f.kind == FindingKind::ScheduleDependent {
            problems.extend(schedules_shown(f));
        }
        let code = f.kind.code().to_string();
        // A grouped race: every racing pair must touch a marked line (the
        // group is no excuse for an unexpected pair).
        for p in &f.pairs {
            let (a, b) = (
                p.first.start.line as usize + 1,
                p.second.start.line as usize + 1,
            );
            if !e.markers.contains(&(a, code.clone())) && !e.markers.contains(&(b, code.clone())) {
                problems.push(format!(
                    "unexpected {code} between lines {a} and {b}: {}",
                    f.message
                ));
            }
        }
        let mut lines = vec![f.span.start.line as usize + 1];
        if matches!(f.kind, FindingKind::DataRace | FindingKind::BenignRace) {
            lines.extend(f.related.iter().map(|r| r.span.start.line as usize + 1));
        }
        if !lines
            .iter()
            .any(|l| e.markers.contains(&(*l, code.clone())))
        {
            problems.push(format!(
                "unexpected {code} at line {}: {}",
                lines[0], f.message
            ));
        }
    }
    for (line, kind) in &e.markers {
        let matched = report.findings.iter().any(|f| {
            f.kind.code() == kind
                && (f.span.start.line as usize + 1 == *line
                    // A race's other accesses; the other `#include` lines
                    // of a grouped include note.
                    || (matches!(
                        f.kind,
                        FindingKind::DataRace | FindingKind::BenignRace | FindingKind::Include
                    ) && (f
                            .related
                            .iter()
                            .any(|r| r.span.start.line as usize + 1 == *line)
                            || f.pairs.iter().any(|p| {
                                p.first.start.line as usize + 1 == *line
                                    || p.second.start.line as usize + 1 == *line
                            }))))
        });
        if !matched {
            problems.push(format!("missing {kind} at line {line}"));
        }
    }
    let actual: BTreeMap<String, String> = report
        .kernels
        .iter()
        .map(|k| (k.name.clone(), k.status.as_str().to_string()))
        .collect();
    for (name, status) in &e.kernels {
        match actual.get(name) {
            Some(s) if s == status => {}
            Some(s) => problems.push(format!("kernel `{name}`: expected {status}, got {s}")),
            None => problems.push(format!("kernel `{name}` not found")),
        }
    }
    for name in actual.keys() {
        if !e.kernels.contains_key(name) {
            problems.push(format!("kernel `{name}` has no `// expect-kernel:` line"));
        }
    }
    problems
}

/// `tests/projects`: multi-file fixtures (kernels, headers, host code,
/// syncscope.toml, compile_commands.json) checked as projects.
pub fn projects_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("projects")
}

/// The fixture's `syncscope-args` with [`VERDICT_LIMITS`] and each `-I DIR`
/// made absolute against the fixture's folder (as a build would give it).
pub fn project_flags(e: &Expectations, file: &Path) -> Vec<String> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let mut out: Vec<String> = VERDICT_LIMITS.iter().map(|s| s.to_string()).collect();
    let mut it = e.flags.iter();
    while let Some(f) = it.next() {
        if f == "-I" {
            if let Some(d) = it.next() {
                out.push("-I".into());
                out.push(dir.join(d).display().to_string());
            }
        } else {
            out.push(f.clone());
        }
    }
    out
}

/// The `-I` folders of [`project_flags`].
pub fn include_flags(flags: &[String]) -> Vec<String> {
    flags
        .windows(2)
        .filter(|w| w[0] == "-I")
        .map(|w| w[1].clone())
        .collect()
}

/// Checks `include` findings (missing or unknown headers) against
/// `//~ include` markers, both ways: (1-based line, kind) pairs of findings.
pub fn check_include_markers(e: &Expectations, found: &[(usize, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (line, kind) in found.iter().filter(|(_, k)| k == "include") {
        if !e.markers.contains(&(*line, kind.clone())) {
            problems.push(format!("unexpected include finding at line {line}"));
        }
    }
    for (line, kind) in e.markers.iter().filter(|(_, k)| k == "include") {
        if !found.contains(&(*line, kind.clone())) {
            problems.push(format!("no include finding at line {line}"));
        }
    }
    problems
}

/// The lines of a human report wider than [`syncscope::output::WIDTH`]
/// that could have been broken. Excepted, because they cannot be: a quoted
/// source line (`12 | code`) and its carets, a diff line of a fix
/// (`12 + code`), a `-->` path, and a line whose text is one piece that
/// wider than a line by itself (a quote of an expression, which is never
/// broken inside).
pub fn overlong_lines(human: &str) -> Vec<String> {
    let width = syncscope::output::WIDTH;
    human
        .lines()
        .filter(|l| l.chars().count() > width)
        .filter(|l| {
            let t = l.trim_start();
            let numbered = t.split_once(' ').is_some_and(|(n, rest)| {
                n.chars().all(|c| c.is_ascii_digit())
                    && (rest.starts_with("| ") || rest.starts_with("+ ") || rest.starts_with("- "))
            });
            let carets = t
                .strip_prefix('|')
                .is_some_and(|rest| rest.trim().chars().all(|c| c == '^'));
            let path = t.starts_with("--> ");
            !(numbered || carets || path || one_piece(t))
        })
        .map(str::to_string)
        .collect()
}

/// Whether the text of a note or label line (after `= note:` or `|`) has
/// no space outside backtick quotes: a piece the wrapping must not break.
fn one_piece(line: &str) -> bool {
    let text = line
        .strip_prefix("= note:")
        .or_else(|| line.strip_prefix('|'))
        .unwrap_or(line)
        .trim();
    let mut quoted = false;
    !text.chars().any(|c| {
        if c == '`' {
            quoted = !quoted;
        }
        c == ' ' && !quoted
    })
}
