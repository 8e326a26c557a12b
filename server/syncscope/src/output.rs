//! Rendering of reports: human (rustc-like, with carets and colour), JSON
//! (the stable contract) and SARIF 2.1.0 (code-scanning upload).

use serde_json::{json, Value};
use std::fmt::Write;
use std::io::IsTerminal;
use std::path::PathBuf;
use syncscope_core::{FileReport, Finding, Fix, LineStarts, Severity, Span, TextEdit};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Sarif,
}

pub struct FileResult {
    pub path: PathBuf,
    pub text: String,
    pub report: FileReport,
    /// `__CUDA_ARCH__` of the device pass the file was read as.
    pub cuda_arch: u32,
}

/// Colour only when stdout is a terminal and `NO_COLOR` is unset or empty
/// (<https://no-color.org>): piped or redirected output is plain text.
pub fn use_color() -> bool {
    color_wanted(
        std::env::var_os("NO_COLOR"),
        std::io::stdout().is_terminal(),
    )
}

fn color_wanted(no_color: Option<std::ffi::OsString>, terminal: bool) -> bool {
    terminal && no_color.is_none_or(|v| v.is_empty())
}

/// Which findings fail a `check` run (exit status 1): the one rule behind
/// the exit status and what `--quiet` keeps.
#[derive(Clone, Debug, Default)]
pub struct FailPolicy {
    /// `--deny-warnings`: anything short of a proof fails too (warnings,
    /// `unknown`, `not-verified`), never a silent green.
    pub deny_warnings: bool,
    /// `--fail-on KINDS`: these kinds fail the run.
    pub fail_on: Vec<syncscope_core::FindingKind>,
}

impl FailPolicy {
    pub fn fails(&self, f: &Finding) -> bool {
        use syncscope_core::FindingKind::{NotVerified, Unknown};
        let short_of_proof =
            f.severity == Severity::Warning || matches!(f.kind, Unknown | NotVerified);
        f.severity == Severity::Error
            || (self.deny_warnings && short_of_proof)
            || self.fail_on.contains(&f.kind)
    }
}

/// How the human format is printed.
#[derive(Clone, Debug, Default)]
pub struct HumanStyle {
    /// ANSI colours (see [`use_color`]).
    pub color: bool,
    /// Only the findings that fail the run (see [`FailPolicy`]) and no
    /// summary line.
    pub quiet: bool,
    /// What fails the run, so that `quiet` keeps it.
    pub policy: FailPolicy,
    /// The part of a sharded run (`--shard`), named in the summary line so
    /// that a job's log says which files it covered.
    pub shard: Option<crate::shard::Shard>,
}

/// The syntax errors of one file that the human format prints; the rest are
/// counted (`--format json` lists every one the parser reported).
pub const SHOWN_SYNTAX_ERRORS: usize = 10;

/// A file's line starts, computed once: every location of a report is
/// converted through it (scanning from the start of the file for each one
/// made a report of 10,000 kernels quadratic).
pub struct LineIndex<'a> {
    text: &'a str,
    starts: LineStarts,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        LineIndex {
            text,
            starts: LineStarts::new(text),
        }
    }

    /// 1-based line and 1-based column in characters.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let text = self.text;
        let mut off = (offset as usize).min(text.len());
        while off > 0 && !text.is_char_boundary(off) {
            off -= 1;
        }
        let (line, line_start) = self.starts.line_of(off);
        (line + 1, text[line_start..off].chars().count() + 1)
    }
}

fn range_json(index: &LineIndex, span: &Span) -> Value {
    let (sl, sc) = index.line_col(span.start.offset);
    let (el, ec) = index.line_col(span.end.offset);
    json!({"start": {"line": sl, "column": sc}, "end": {"line": el, "column": ec}})
}

fn severity_str(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information => "information",
        Severity::Hint => "hint",
    }
}

pub fn finding_json(file: &str, text: &LineIndex, f: &Finding) -> Value {
    let mut v = json!({
        "kind": f.kind.code(),
        "severity": severity_str(f.severity),
        "file": file,
        "kernel": f.kernel,
        "message": f.message,
        "range": range_json(text, &f.span),
        "related": f.related.iter().map(|r| json!({
            "file": file,
            "range": range_json(text, &r.span),
            "message": r.message,
        })).collect::<Vec<_>>(),
    });
    if !f.pairs.is_empty() {
        // Every racing pair of a grouped race finding (`related` lists the
        // later access of each).
        v["pairs"] = json!(f
            .pairs
            .iter()
            .map(|p| json!({
                "first": {"range": range_json(text, &p.first), "text": p.first_text},
                "second": {"range": range_json(text, &p.second), "text": p.second_text},
            }))
            .collect::<Vec<_>>());
    }
    if !f.fixes.is_empty() {
        v["fixes"] = json!(f
            .fixes
            .iter()
            .map(|x| json!({
                "title": x.title,
                "verified": x.verified,
                "precondition": x.precondition,
                "edits": x.edits.iter().map(|e| json!({
                    "range": range_json(text, &e.span),
                    "newText": e.new_text,
                })).collect::<Vec<_>>(),
            }))
            .collect::<Vec<_>>());
    }
    if !f.launches.is_empty() {
        // The launches (sites or instantiations) the finding holds under.
        v["launches"] = json!(f.launches);
    }
    // A race's condition on the kernel's parameters (with `--fixes`):
    // `condition` is null when it races for every value.
    if let Some(c) = &f.race_condition {
        let condition = match c.expression() {
            None => Value::Null,
            Some(condition) => json!(condition),
        };
        v["raceCondition"] = json!({"condition": condition, "summary": c.describe()});
    }
    if let Some(w) = &f.witness {
        v["witness"] = json!({
            "threads": w.threads.iter().map(|t| json!({
                "threadIdx": t.thread_idx,
                "blockIdx": t.block_idx,
            })).collect::<Vec<_>>(),
            "values": w.values.iter().map(|(n, x)| (n.clone(), json!(x))).collect::<serde_json::Map<_, _>>(),
            "index": w.index(),
            "summary": w.describe(),
        });
    }
    // Whether the witness also ran from source on the simulator (races
    // and divergences only).
    match &f.source_replay {
        Some(syncscope_core::SourceReplay::Reproduced) => {
            v["sourceReplay"] = json!({"outcome": "reproduced"})
        }
        Some(syncscope_core::SourceReplay::Absent) => {
            v["sourceReplay"] = json!({"outcome": "absent"})
        }
        Some(syncscope_core::SourceReplay::NotRun { why }) => {
            v["sourceReplay"] = json!({"outcome": "not-run", "why": why})
        }
        None => {}
    }
    v
}

pub fn json(results: &[FileResult]) -> String {
    let mut findings = Vec::new();
    let mut kernels = Vec::new();
    for r in results {
        let file = r.path.display().to_string();
        let index = LineIndex::new(&r.text);
        for f in &r.report.findings {
            findings.push(finding_json(&file, &index, f));
        }
        for k in &r.report.kernels {
            kernels.push(json!({
                "file": file,
                "name": k.name,
                "status": k.status.as_str(),
                "millis": k.millis,
                "cudaArch": r.cuda_arch,
                "launch": k.launch,
                "launchNote": k.launch_note,
                "queries": k.queries,
                "range": range_json(&index, &k.span),
            }));
        }
    }
    let mut s = serde_json::to_string_pretty(&json!({"findings": findings, "kernels": kernels}))
        .unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

/// SARIF's name for the folder `check` ran in: relative file URIs resolve
/// against it (code-scanning services map it to the repository root).
const SRCROOT: &str = "SRCROOT";

pub fn sarif(results: &[FileResult]) -> String {
    sarif_relative_to(results, std::env::current_dir().ok().as_deref())
}

/// SARIF with file locations relative to `base` (the working folder) where
/// they lie under it: a relative reference with `uriBaseId` `SRCROOT`, which
/// code scanning resolves against the checkout. A file outside `base` gets
/// an absolute `file://` URI instead (a relative reference must not start
/// with a slash, SARIF rule 1004).
pub fn sarif_relative_to(results: &[FileResult], base: Option<&std::path::Path>) -> String {
    // One rule per kind of the core's registry, at the kind's own index.
    let rules: Vec<Value> = syncscope_core::FindingKind::ALL
        .iter()
        .map(|k| {
            let id = k.code();
            json!({
                "id": id,
                "shortDescription": {"text": k.info().description},
                "helpUri": format!("https://github.com/syncscope/syncscope/blob/main/docs/diagnostics.md#{id}"),
            })
        })
        .collect();
    let region = |index: &LineIndex, span: &Span| {
        let (sl, sc) = index.line_col(span.start.offset);
        let (el, ec) = index.line_col(span.end.offset);
        json!({"startLine": sl, "startColumn": sc, "endLine": el, "endColumn": ec})
    };
    let mut out = Vec::new();
    for r in results {
        let artifact = artifact_location(&r.path, base);
        let index = LineIndex::new(&r.text);
        for f in &r.report.findings {
            let level = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Information | Severity::Hint => "note",
            };
            let rule_index = f.kind.index();
            let message = match &f.witness {
                Some(w) => format!("{} (witness: {})", f.message, w.describe()),
                None => f.message.clone(),
            };
            out.push(json!({
                "ruleId": f.kind.code(),
                "ruleIndex": rule_index,
                "level": level,
                "message": {"text": message},
                "locations": [{"physicalLocation": {
                    "artifactLocation": artifact.clone(),
                    "region": region(&index, &f.span),
                }}],
                "relatedLocations": f.related.iter().enumerate().map(|(i, rel)| json!({
                    "id": i,
                    "message": {"text": rel.message},
                    "physicalLocation": {
                        "artifactLocation": artifact.clone(),
                        "region": region(&index, &rel.span),
                    }
                })).collect::<Vec<_>>(),
            }));
        }
    }
    let original_uri_base_ids = match base {
        Some(b) if b.is_absolute() => {
            json!({ SRCROOT: {"uri": format!("{}/", file_uri(b).trim_end_matches('/'))} })
        }
        _ => json!({}),
    };
    let doc = json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "originalUriBaseIds": original_uri_base_ids,
            "tool": {"driver": {
                "name": "syncscope",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/syncscope/syncscope",
                "rules": rules,
            }},
            "results": out,
            // Each kernel's verdict and the launch assumption it holds under.
            "properties": {"kernels": results.iter().flat_map(|r| r.report.kernels.iter().map(|k| json!({
                "file": r.path.display().to_string(),
                "name": k.name,
                "status": k.status.as_str(),
                "launch": k.launch,
                "launchNote": k.launch_note,
                "cudaArch": r.cuda_arch,
            }))).collect::<Vec<_>>()},
        }]
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

/// Where a file is, as a SARIF `artifactLocation`: relative to `base` with
/// `uriBaseId` when it lies under it (or is relative already), else an
/// absolute `file://` URI.
fn artifact_location(path: &std::path::Path, base: Option<&std::path::Path>) -> Value {
    let relative = if path.is_relative() {
        Some(path.to_path_buf())
    } else {
        base.and_then(|b| path.strip_prefix(b).ok().map(|p| p.to_path_buf()))
    };
    match relative {
        Some(rel) => {
            let parts: Vec<String> = rel
                .components()
                .filter_map(|c| match c {
                    std::path::Component::Normal(s) => Some(percent_encode(&s.to_string_lossy())),
                    std::path::Component::ParentDir => Some("..".to_string()),
                    _ => None,
                })
                .collect();
            json!({"uri": parts.join("/"), "uriBaseId": SRCROOT})
        }
        None => json!({"uri": file_uri(path)}),
    }
}

/// `file:///…` URI of an absolute path, each segment percent-encoded.
fn file_uri(path: &std::path::Path) -> String {
    let mut uri = String::from("file://");
    for c in path.components() {
        match c {
            std::path::Component::Normal(s) => {
                uri.push('/');
                uri.push_str(&percent_encode(&s.to_string_lossy()));
            }
            std::path::Component::Prefix(p) => {
                uri.push('/');
                uri.push_str(&p.as_os_str().to_string_lossy().replace('\\', "/"));
            }
            _ => {}
        }
    }
    if uri == "file://" {
        uri.push('/');
    }
    uri
}

/// RFC 3986 percent-encoding of one path segment (unreserved characters
/// stay as they are).
fn percent_encode(segment: &str) -> String {
    let mut out = String::new();
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// ANSI colour `code` around `s` when `color` is on.
fn paint(color: bool, code: &str, s: &str) -> String {
    if color {
        format!("\x1b[{code}m{s}\x1b[0m")
    } else {
        s.to_string()
    }
}

/// The columns the human format keeps to: every line but a quoted source
/// line, its carets, a `-->` path and a word longer than a whole line
/// (a long quoted expression) fits.
pub const WIDTH: usize = 80;

/// The pieces of `text` for wrapping: the parts between `, ` and `; `
/// whole where they fit in `room` (a list breaks between its items, not
/// inside `blockDim.z == 1`), else their words.
fn words(text: &str, room: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let end = [rest.find(", "), rest.find("; ")]
            .into_iter()
            .flatten()
            .min()
            .map_or(rest.len(), |i| i + 1);
        let (part, tail) = rest.split_at(end);
        if part.chars().count() <= room && !part.contains('`') {
            out.push(part.trim().to_string());
        } else {
            out.extend(quoted_words(part, room));
        }
        rest = tail.trim_start();
    }
    out.retain(|w| !w.is_empty());
    out
}

/// The words of `text`: split at spaces, except that a backtick quote
/// that fits in `room` stays whole.
fn quoted_words(text: &str, room: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut open = false;
    for w in text.split(' ').filter(|w| !w.is_empty()) {
        let ticks = w.matches('`').count();
        match out.last_mut() {
            Some(last) if open && last.chars().count() + 1 + w.chars().count() <= room => {
                last.push(' ');
                last.push_str(w);
            }
            _ => out.push(w.to_string()),
        }
        if ticks % 2 == 1 {
            open = !open;
        }
    }
    out
}

/// `text` in lines of at most `first` characters, then `rest` (greedy; a
/// word longer than a line stands alone).
fn wrap(text: &str, first: usize, rest: usize) -> Vec<String> {
    wrap_words(words(text, rest), first, rest)
}

fn wrap_words(words: Vec<String>, first: usize, rest: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for w in words {
        let room = if lines.is_empty() { first } else { rest };
        if !line.is_empty() && line.chars().count() + 1 + w.chars().count() > room {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&w);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `prefix` then `text` wrapped at [`WIDTH`], continuation lines indented
/// to where the text starts (`prefix_len` columns: the prefix may carry
/// colour codes).
fn write_wrapped(out: &mut String, prefix: &str, prefix_len: usize, text: &str) {
    let room = WIDTH.saturating_sub(prefix_len).max(20);
    for (i, l) in wrap(text, room, room).iter().enumerate() {
        if i == 0 {
            let _ = writeln!(out, "{prefix}{l}");
        } else {
            let _ = writeln!(out, "{}{l}", " ".repeat(prefix_len));
        }
    }
}

/// A headline that fits in `room` columns, and what it leaves for a note:
/// cut at the last `: ` that leaves a part that fits (`unknown: could not
/// decide...` → `unknown`), or at a word.
fn split_headline(text: &str, room: usize) -> (String, Option<String>) {
    if text.chars().count() <= room {
        return (text.to_string(), None);
    }
    let cut = text
        .match_indices(": ")
        .map(|(i, _)| i)
        .filter(|i| text[..*i].chars().count() <= room)
        .last();
    if let Some(i) = cut {
        return (text[..i].to_string(), Some(text[i + 2..].to_string()));
    }
    // At the last space that leaves a head that fits (after the first
    // word when even that is wider).
    let limit = text.char_indices().nth(room).map_or(text.len(), |(i, _)| i);
    let cut = text[..limit]
        .rfind(' ')
        .filter(|&i| i > 0)
        .or_else(|| text.find(' '));
    match cut {
        Some(i) => {
            let rest = text[i..].trim_start().to_string();
            (
                text[..i].trim_end().to_string(),
                (!rest.is_empty()).then_some(rest),
            )
        }
        None => (text.to_string(), None),
    }
}

/// One `= note: text` line under a finding, wrapped.
fn write_note(out: &mut String, gutter: usize, color: bool, text: &str) {
    let prefix = format!(
        "{} {} ",
        " ".repeat(gutter),
        paint(color, "1;34", "= note:")
    );
    write_wrapped(out, &prefix, gutter + 9, text);
}

/// The witness as notes: each thread on its own line, then the values.
fn write_witness(out: &mut String, gutter: usize, color: bool, w: &syncscope_core::Witness) {
    let tuple = |v: &[i64; 3]| format!("({},{},{})", v[0], v[1], v[2]);
    for (i, t) in w.threads.iter().enumerate() {
        let text = format!(
            "thread {}: threadIdx = {}, blockIdx = {}",
            i + 1,
            tuple(&t.thread_idx),
            tuple(&t.block_idx)
        );
        write_note(out, gutter, color, &text);
    }
    let values = w.value_parts();
    if !values.is_empty() {
        // Broken between values, never inside one (`i (thread 1) = 3`).
        let last = values.len() - 1;
        let items =
            std::iter::once("witness:".to_string())
                .chain(values.into_iter().enumerate().map(|(i, v)| {
                    if i < last {
                        format!("{v},")
                    } else {
                        v
                    }
                }))
                .collect();
        let room = WIDTH - gutter - 9;
        let prefix = format!(
            "{} {} ",
            " ".repeat(gutter),
            paint(color, "1;34", "= note:")
        );
        for (i, l) in wrap_words(items, room, room).iter().enumerate() {
            if i == 0 {
                let _ = writeln!(out, "{prefix}{l}");
            } else {
                let _ = writeln!(out, "{}{l}", " ".repeat(gutter + 9));
            }
        }
    }
}

pub fn human(results: &[FileResult], color: bool) -> String {
    human_with(
        results,
        HumanStyle {
            color,
            ..HumanStyle::default()
        },
    )
}

/// A file that is not CUDA at all (a Markdown or Python file passed by
/// mistake): no kernel was found, syntax errors touch at least a third of
/// its non-blank lines, and it either does not have a C, C++ or CUDA file
/// name or names none of CUDA's keywords. Such a file gets one error instead
/// of one per sentence; a `.cu` file with a kernel lost in its syntax errors
/// still gets its syntax errors.
fn not_cuda(r: &FileResult, index: &LineIndex) -> Option<String> {
    const SOURCE_EXTENSIONS: [&str; 11] = [
        "cu", "cuh", "c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx", "inl",
    ];
    const CUDA_WORDS: [&str; 5] = [
        "__global__",
        "__device__",
        "__shared__",
        "__syncthreads",
        "threadIdx",
    ];
    let source_name = r
        .path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SOURCE_EXTENSIONS.contains(&e));
    let cuda_words = CUDA_WORDS.iter().any(|w| r.text.contains(w));
    if !r.report.kernels.is_empty() || (source_name && cuda_words) {
        return None;
    }
    let errors: Vec<&Finding> = r
        .report
        .findings
        .iter()
        .filter(|f| f.kind == syncscope_core::FindingKind::SyntaxError)
        .collect();
    if errors.is_empty() {
        return None;
    }
    let mut touched = std::collections::BTreeSet::new();
    for f in &errors {
        let (first, _) = index.line_col(f.span.start.offset);
        let (last, _) = index.line_col(f.span.end.offset);
        touched.extend(first..=last);
    }
    let nonblank: Vec<usize> = r
        .text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, _)| i + 1)
        .collect();
    let bad = nonblank.iter().filter(|l| touched.contains(*l)).count();
    (bad * 3 >= nonblank.len()).then(|| {
        format!(
            "`{}` does not look like CUDA: it declares no kernel and {} of its {} non-blank lines do not parse; it was not analysed",
            r.path.display(),
            bad,
            nonblank.len()
        )
    })
}

pub fn human_with(results: &[FileResult], style: HumanStyle) -> String {
    let color = style.color;
    let paint = |code: &str, s: &str| paint(color, code, s);
    let mut out = String::new();
    let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut nkernels = 0;
    let mut syntax_files = 0;
    let mut launches = Vec::new();
    let mut archs = std::collections::BTreeSet::new();
    for r in results {
        let file = r.path.display().to_string();
        let lines: Vec<&str> = r.text.lines().collect();
        let index = LineIndex::new(&r.text);
        let not_cuda = not_cuda(r, &index);
        if let Some(message) = &not_cuda {
            let (head, rest) = split_headline(message, WIDTH - "error[syntax-error]: ".len());
            let _ = writeln!(
                out,
                "{}{} {}",
                paint("1;31", "error[syntax-error]"),
                paint("1", ":"),
                paint("1", &head)
            );
            if let Some(rest) = rest {
                write_note(&mut out, 1, color, &rest);
            }
            out.push('\n');
        }
        let mut syntax_errors = 0;
        // Fixes already printed as a diff in this file, with the line of
        // the finding they were printed under: several findings of one
        // cause (the races one barrier separates) share one fix, shown once.
        let mut printed_fixes: Vec<(&[TextEdit], usize)> = Vec::new();
        for f in &r.report.findings {
            if f.kind == syncscope_core::FindingKind::SyntaxError {
                syntax_errors += 1;
                if not_cuda.is_some() || syntax_errors > SHOWN_SYNTAX_ERRORS {
                    continue;
                }
            }
            if style.quiet && !style.policy.fails(f) {
                continue;
            }
            let (label, code) = match f.severity {
                Severity::Error => ("error", "1;31"),
                Severity::Warning => ("warning", "1;33"),
                Severity::Information => ("info", "1;36"),
                Severity::Hint => ("note", "1;32"),
            };
            // A short headline (the message's first part when it has no
            // headline of its own); the rest of the story is in the notes.
            let tag = format!("{label}[{}]", f.kind.code());
            let (head, spill) = split_headline(
                f.headline.as_deref().unwrap_or(&f.message),
                WIDTH - tag.len() - 2,
            );
            let _ = writeln!(
                out,
                "{}{} {}",
                paint(code, &tag),
                paint("1", ":"),
                paint("1", &head)
            );
            // One gutter for the whole finding, wide enough for its largest
            // line number, so that every `|` and `=` lines up.
            let gutter = std::iter::once(&f.span)
                .chain(f.related.iter().map(|r| &r.span))
                .map(|s| index.line_col(s.start.offset).0.to_string().len())
                .max()
                .unwrap_or(1);
            let at = Snippet {
                file: &file,
                index: &index,
                lines: &lines,
                gutter,
                color,
            };
            at.write(&mut out, &f.span, code, None);
            for rel in &f.related {
                at.write(&mut out, &rel.span, "1;34", Some(&rel.message));
            }
            if let Some(rest) = spill {
                write_note(&mut out, gutter, color, &rest);
            }
            for n in &f.notes {
                write_note(&mut out, gutter, color, n);
            }
            if let Some(c) = &f.race_condition {
                write_note(&mut out, gutter, color, &c.describe());
            }
            if let Some(w) = &f.witness {
                write_witness(&mut out, gutter, color, w);
            }
            for fix in &f.fixes {
                match printed_fixes
                    .iter()
                    .find(|(edits, _)| *edits == fix.edits.as_slice())
                {
                    Some((_, line)) => {
                        let prefix = format!("{}{} ", paint("1;32", "help"), paint("1", ":"));
                        write_wrapped(
                            &mut out,
                            &prefix,
                            "help: ".len(),
                            &format!("the fix shown above at line {line} ({})", fix.title),
                        );
                    }
                    None => {
                        fix_diff(&mut out, &r.text, &index, fix, color);
                        let line = index.line_col(f.span.start.offset).0;
                        printed_fixes.push((&fix.edits, line));
                    }
                }
            }
            out.push('\n');
        }
        if not_cuda.is_none() && syntax_errors > SHOWN_SYNTAX_ERRORS {
            let prefix = format!("{}{} ", paint("1;36", "note"), paint("1", ":"));
            write_wrapped(
                &mut out,
                &prefix,
                "note: ".len(),
                &format!(
                    "{} more syntax errors in `{file}` not shown (`--format json` lists them)",
                    syntax_errors - SHOWN_SYNTAX_ERRORS
                ),
            );
            out.push('\n');
        }
        // The launch each kernel of this file was checked under, or why no
        // launch is understood: one line for the kernels that share it.
        let mut by_launch: Vec<(&str, Vec<String>)> = Vec::new();
        for k in &r.report.kernels {
            nkernels += 1;
            *counts.entry(k.status.as_str()).or_insert(0) += 1;
            // A launch record of uses not understood already says why.
            let Some(text) = k.launch.as_ref().or(k.launch_note.as_ref()) else {
                continue;
            };
            match by_launch.iter_mut().find(|(t, _)| *t == text.as_str()) {
                Some((_, names)) => names.push(format!("`{}`", k.name)),
                None => by_launch.push((text, vec![format!("`{}`", k.name)])),
            }
        }
        for (text, names) in by_launch {
            let kernels = if names.len() == 1 {
                "kernel"
            } else {
                "kernels"
            };
            launches.push(format!("{kernels} {} ({file}): {text}", names.join(", ")));
        }
        archs.insert(r.cuda_arch);
        if r.report
            .findings
            .iter()
            .any(|f| f.kind == syncscope_core::FindingKind::SyntaxError)
        {
            syntax_files += 1;
        }
    }
    if style.quiet {
        return out;
    }
    // The assumptions the verdicts hold under: launch sites found in the
    // code, and the device pass (__CUDA_ARCH__) the files were read as.
    for l in &launches {
        let prefix = format!("{} ", paint("1;36", "launch:"));
        write_wrapped(&mut out, &prefix, "launch: ".len(), l);
    }
    if !results.is_empty() {
        let archs: Vec<String> = archs.iter().map(u32::to_string).collect();
        let _ = writeln!(
            out,
            "{} __CUDA_ARCH__ = {}",
            paint("1;36", "device pass:"),
            archs.join(", ")
        );
    }
    let mut summary: Vec<String> = counts.iter().map(|(s, n)| format!("{n} {s}")).collect();
    // A file that does not parse is never "nothing to verify": a kernel may
    // be lost in its syntax errors.
    if syntax_files > 0 {
        summary.push(format!(
            "{syntax_files} file{} with syntax errors (not fully analysed)",
            if syntax_files == 1 { "" } else { "s" }
        ));
    }
    let mut prefix = String::new();
    let mut prefix_len = 0;
    if let Some(shard) = style.shard {
        let shard = format!("shard {shard}:");
        prefix_len += shard.len() + 1;
        prefix.push_str(&format!("{} ", paint("1", &shard)));
    }
    prefix.push_str(&format!("{} ", paint("1", "checked")));
    prefix_len += "checked ".len();
    let text = format!(
        "{nkernels} kernel{} in {} file{}: {}",
        if nkernels == 1 { "" } else { "s" },
        results.len(),
        if results.len() == 1 { "" } else { "s" },
        if summary.is_empty() {
            "nothing to verify".to_string()
        } else {
            summary.join(", ")
        }
    );
    write_wrapped(&mut out, &prefix, prefix_len, &text);
    out
}

/// A verified fix as a diff of the lines it changes: `-` the lines as they
/// are, `+` the lines as the fix leaves them (numbered in the fixed file).
fn fix_diff(out: &mut String, text: &str, index: &LineIndex, fix: &Fix, color: bool) {
    let paint = |code: &str, s: &str| paint(color, code, s);
    let prefix = format!("{}{} ", paint("1;32", "help"), paint("1", ":"));
    write_wrapped(out, &prefix, "help: ".len(), &fix.title);
    let mut edits: Vec<&TextEdit> = fix.edits.iter().collect();
    edits.sort_by_key(|e| e.span.start.offset);
    let (Some(first), Some(last)) = (edits.first(), edits.last()) else {
        return;
    };
    let clamp = |o: u32| {
        let mut o = (o as usize).min(text.len());
        while !text.is_char_boundary(o) {
            o -= 1;
        }
        o
    };
    // The whole lines the edits touch.
    let start = text[..clamp(first.span.start.offset)]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let end_edit = clamp(last.span.end.offset);
    let end = text[end_edit..]
        .find('\n')
        .map_or(text.len(), |i| end_edit + i);
    let mut fixed = String::new();
    let mut at = start;
    for e in &edits {
        let (a, b) = (clamp(e.span.start.offset), clamp(e.span.end.offset));
        if a < at || b < a {
            return; // overlapping edits: not a fix we can show as a diff
        }
        fixed.push_str(&text[at..a]);
        fixed.push_str(&e.new_text);
        at = b;
    }
    fixed.push_str(&text[at..end]);
    let old: Vec<&str> = text[start..end].split('\n').collect();
    let new: Vec<&str> = fixed.split('\n').collect();
    // Lines the fix leaves as they are, at either end, are not repeated.
    let same_head = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let same_tail = old[same_head..]
        .iter()
        .rev()
        .zip(new[same_head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (first_line, _) = index.line_col(start as u32);
    let first_line = first_line + same_head;
    let removed = &old[same_head..old.len() - same_tail];
    let added = &new[same_head..new.len() - same_tail];
    let gutter = (first_line + removed.len().max(added.len()))
        .to_string()
        .len();
    let _ = writeln!(out, "{} {}", " ".repeat(gutter), paint("1;34", "|"));
    for (i, l) in removed.iter().enumerate() {
        let _ = writeln!(
            out,
            "{} {}",
            paint("1;34", &format!("{:>gutter$}", first_line + i)),
            paint("31", &format!("- {l}"))
        );
    }
    for (i, l) in added.iter().enumerate() {
        let _ = writeln!(
            out,
            "{} {}",
            paint("1;34", &format!("{:>gutter$}", first_line + i)),
            paint("32", &format!("+ {l}"))
        );
    }
}

/// Where a finding's source lines are shown.
struct Snippet<'a> {
    file: &'a str,
    index: &'a LineIndex<'a>,
    lines: &'a [&'a str],
    gutter: usize,
    color: bool,
}

impl Snippet<'_> {
    /// `--> file:line:col`, the source line, and carets under `span`
    /// (with `note` after them).
    fn write(&self, out: &mut String, span: &Span, code: &str, note: Option<&str>) {
        let paint = |code: &str, s: &str| paint(self.color, code, s);
        let (line, col) = self.index.line_col(span.start.offset);
        let (end_line, end_col) = self.index.line_col(span.end.offset);
        let pad = " ".repeat(self.gutter);
        let _ = writeln!(
            out,
            "{pad}{} {}:{line}:{col}",
            paint("1;34", "-->"),
            self.file
        );
        let Some(src) = self.lines.get(line - 1) else {
            return;
        };
        let _ = writeln!(out, "{pad} {}", paint("1;34", "|"));
        let _ = writeln!(
            out,
            "{} {} {}",
            paint("1;34", &format!("{line:>width$}", width = self.gutter)),
            paint("1;34", "|"),
            src
        );
        let width = if end_line == line {
            end_col.saturating_sub(col).max(1)
        } else {
            src.chars().count().saturating_sub(col - 1).max(1)
        };
        let carets = format!("{}{}", " ".repeat(col - 1), "^".repeat(width));
        // The label after the carets when the line stays in [`WIDTH`];
        // else under them (or under the line's start when the carets are
        // far right), wrapped.
        let bar = self.gutter + 3;
        let label = note.filter(|n| !n.is_empty());
        let inline =
            label.filter(|n| bar + carets.chars().count() + 1 + n.chars().count() <= WIDTH);
        let _ = writeln!(
            out,
            "{pad} {} {}{}",
            paint("1;34", "|"),
            paint(code, &carets),
            inline
                .map(|n| format!(" {}", paint(code, n)))
                .unwrap_or_default()
        );
        if let (Some(n), None) = (label, inline) {
            let indent = if bar + col - 1 + 30 <= WIDTH {
                col - 1
            } else {
                0
            };
            let room = WIDTH - bar - indent;
            for l in wrap(n, room, room) {
                let _ = writeln!(
                    out,
                    "{pad} {} {}{}",
                    paint("1;34", "|"),
                    " ".repeat(indent),
                    paint(code, &l)
                );
            }
        }
    }
}

/// `syncscope equiv`'s human report.
pub fn equiv_human(report: &syncscope_core::equiv::EquivReport, a: &str, b: &str) -> String {
    use syncscope_core::equiv::{Outside, Verdict};
    let mut s = String::new();
    match &report.verdict {
        Verdict::Equivalent => s.push_str(&format!(
            "equivalent: `{a}` and `{b}` leave the same value in every global location, for all inputs and every launch the options and both versions' preconditions allow\n"
        )),
        Verdict::Different(c) => {
            s.push_str(&format!("not equivalent: `{a}` and `{b}` differ\n"));
            counterexample_human(&mut s, c);
        }
        Verdict::Conditional {
            condition,
            outside: Outside::Differs(outside),
        } => {
            s.push_str(&format!(
                "equivalent when {condition}: `{a}` and `{b}` leave the same value in every global location for every launch where it holds (proved with it added to both versions' preconditions), and differ outside it:\n"
            ));
            counterexample_human(&mut s, outside);
        }
        Verdict::Conditional {
            condition,
            outside: Outside::Undefined(why),
        } => {
            s.push_str(&format!(
                "equivalent when {condition}: `{a}` and `{b}` leave the same value in every global location under each launch where it holds (each proved on its own), and outside it a result is undefined: {why}\n"
            ));
        }
        Verdict::Unknown(why) => s.push_str(&format!("unknown: {why}\n")),
        Verdict::Refused(why) => s.push_str(&format!("refused: {why}\n")),
    }
    for launch in &report.compared_under {
        s.push_str(&format!("compared under: {launch}\n"));
    }
    for n in &report.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s.push_str(&equiv_tail(report));
    s
}

/// A counterexample's launch, location and the two written values.
fn counterexample_human(s: &mut String, c: &syncscope_core::equiv::Counterexample) {
    s.push_str(&format!(
        "  launch: block ({}, {}, {}), grid ({}, {}, {})\n",
        c.block_dim[0], c.block_dim[1], c.block_dim[2], c.grid_dim[0], c.grid_dim[1], c.grid_dim[2]
    ));
    if !c.params.is_empty() {
        let p: Vec<String> = c.params.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        s.push_str(&format!("  parameters: {}\n", p.join(", ")));
    }
    s.push_str(&format!("  location: {}[{}]\n", c.array, c.index));
    let show = |v: Option<i64>| v.map_or("(not written)".to_string(), |v| v.to_string());
    s.push_str(&format!("  A leaves {}: {}\n", show(c.value_a), c.expr_a));
    s.push_str(&format!("  B leaves {}: {}\n", show(c.value_b), c.expr_b));
    s.push_str("  (replayed on the concrete interpreter, inputs a fixed injective function of (array, index))\n");
}

/// The work a comparison did.
fn equiv_tail(report: &syncscope_core::equiv::EquivReport) -> String {
    format!(
        "{} concrete launches, {} queries, {} ms\n",
        report.launches, report.queries, report.millis
    )
}

/// `syncscope equiv`'s JSON report.
pub fn equiv_json(report: &syncscope_core::equiv::EquivReport, a: &str, b: &str) -> String {
    serde_json::to_string_pretty(&report.to_json(a, b)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Open bug 5, CLI side: a file whose kernel is lost to a syntax error
    /// was summarised as "nothing to verify".
    #[test]
    fn the_summary_counts_files_with_syntax_errors() {
        let text = "__global__ void k(int *a) [ a[threadIdx.x] = 1; }\n".to_string();
        let report = syncscope_core::analyze_source(&text, &Default::default());
        let out = human(
            &[FileResult {
                path: "lost.cu".into(),
                text,
                report,
                cuda_arch: 800,
            }],
            false,
        );
        assert!(
            out.contains(
                "checked 0 kernels in 1 file: 1 file with syntax errors (not fully analysed)"
            ),
            "{out}"
        );
        assert!(!out.contains("nothing to verify"), "{out}");
    }

    fn render(
        name: &str,
        text: &str,
        options: &syncscope_core::Options,
        style: HumanStyle,
    ) -> String {
        let report = syncscope_core::analyze_source(text, options);
        human_with(
            &[FileResult {
                path: name.into(),
                text: text.to_string(),
                report,
                cuda_arch: options.cuda_arch,
            }],
            style,
        )
    }

    /// A sharded run's summary says which part it was; an empty part says
    /// it checked nothing, and `--quiet` still prints no summary.
    #[test]
    fn the_summary_names_the_shard() {
        let text = "__global__ void k(float *a) {\n  a[threadIdx.x] = 1.0f;\n}\n";
        let shard = crate::shard::parse_shard("2/4").ok();
        let style = HumanStyle {
            shard,
            ..HumanStyle::default()
        };
        let out = render("k.cu", text, &Default::default(), style.clone());
        assert!(
            out.lines()
                .any(|l| l == "shard 2/4: checked 1 kernel in 1 file: 1 verified"),
            "{out}"
        );
        let empty = human_with(&[], style.clone());
        assert_eq!(
            empty,
            "shard 2/4: checked 0 kernels in 0 files: nothing to verify\n"
        );
        let quiet = HumanStyle {
            quiet: true,
            ..style
        };
        assert_eq!(render("k.cu", text, &Default::default(), quiet), "");
    }

    /// Issue 19: a same-value write is a `benign-race` note in the human
    /// format, a SARIF `note`, and fails the run only when asked.
    #[test]
    fn a_benign_race_is_a_note_that_fails_only_on_request() {
        let text = "__global__ void k(int *flag, const float *in) {\n  __shared__ int s;\n  if (in[threadIdx.x] < 0.0f)\n    s = 1;\n  __syncthreads();\n  if (threadIdx.x == 0)\n    flag[blockIdx.x] = s;\n}\n";
        let options = syncscope_core::Options {
            block_dim: Some([64, 1, 1]),
            grid_dim: Some([4, 1, 1]),
            ..Default::default()
        };
        let out = render("flag.cu", text, &options, HumanStyle::default());
        assert!(
            out.contains("note[benign-race]: benign race on `s[0]`"),
            "{out}"
        );
        assert!(out.contains("1 verified"), "{out}");
        let report = syncscope_core::analyze_source(text, &options);
        let benign = report
            .findings
            .iter()
            .find(|f| f.kind == syncscope_core::FindingKind::BenignRace)
            .expect("a benign race");
        assert!(!FailPolicy::default().fails(benign));
        let on_request = FailPolicy {
            fail_on: vec![syncscope_core::FindingKind::BenignRace],
            ..Default::default()
        };
        assert!(on_request.fails(benign));
        let sarif_out = sarif(&[FileResult {
            path: "flag.cu".into(),
            text: text.to_string(),
            report,
            cuda_arch: 800,
        }]);
        let v: Value = serde_json::from_str(&sarif_out).expect("SARIF is JSON");
        let result = &v["runs"][0]["results"][0];
        assert_eq!(result["ruleId"], "benign-race");
        assert_eq!(result["level"], "note");
        let strict = syncscope_core::Options {
            strict_benign: true,
            ..options
        };
        let out = render("flag.cu", text, &strict, HumanStyle::default());
        assert!(out.contains("error[data-race]"), "{out}");
        assert!(out.contains("1 racy"), "{out}");
    }

    #[test]
    fn a_file_that_is_not_cuda_is_said_once() {
        let text = "# Notes\n\nThis file is *Markdown*, not CUDA: it has [links](x) and\nsentences, one after another, for many lines.\n\n- a list\n- of items\n";
        let out = render("notes.md", text, &Default::default(), HumanStyle::default());
        assert_eq!(out.matches("error[syntax-error]").count(), 1, "{out}");
        assert!(out.contains("`notes.md` does not look like CUDA"), "{out}");
    }

    #[test]
    fn syntax_errors_are_capped_with_a_count() {
        let mut text = String::from("__global__ void k(int *a) { a[threadIdx.x] = 1; }\n");
        for i in 0..25 {
            text.push_str(&format!("int broken_{i} = ;\n"));
        }
        let report = syncscope_core::analyze_source(&text, &Default::default());
        let total = report
            .findings
            .iter()
            .filter(|f| f.kind == syncscope_core::FindingKind::SyntaxError)
            .count();
        assert!(total > SHOWN_SYNTAX_ERRORS, "{total}");
        let out = render(
            "typos.cu",
            &text,
            &Default::default(),
            HumanStyle::default(),
        );
        assert_eq!(
            out.matches("error[syntax-error]").count(),
            SHOWN_SYNTAX_ERRORS,
            "{out}"
        );
        assert!(
            out.contains(&format!(
                "{} more syntax errors in `typos.cu` not shown",
                total - SHOWN_SYNTAX_ERRORS
            )),
            "{out}"
        );
    }

    #[test]
    fn fixes_are_printed_as_a_diff() {
        let text = "__global__ void k(float *a, int n) {\n    __shared__ float s[256];\n    if (threadIdx.x < n) {\n        s[threadIdx.x] = a[threadIdx.x];\n        __syncthreads();\n        a[threadIdx.x] = s[255 - threadIdx.x];\n    }\n}\n";
        let options = syncscope_core::Options {
            compute_fixes: true,
            ..Default::default()
        };
        let report = syncscope_core::analyze_source(text, &options);
        let fix = report
            .findings
            .iter()
            .flat_map(|f| &f.fixes)
            .next()
            .expect("a verified fix for the divergent barrier");
        let out = render("div.cu", text, &options, HumanStyle::default());
        assert!(out.contains(&format!("help: {}", fix.title)), "{out}");
        // The lines as they are, then as the fix leaves them.
        assert!(out.contains("- "), "{out}");
        assert!(out.contains("+ "), "{out}");
        assert!(out.contains("+     __syncthreads();"), "{out}");
    }

    #[test]
    fn quiet_prints_only_what_fails_the_run() {
        let text = "__global__ void k(float *a) {\n  __shared__ float s[64];\n  s[threadIdx.x] = 1.0f;\n  __syncthreads();\n  a[threadIdx.x] = s[threadIdx.x];\n}\n";
        let options = syncscope_core::Options {
            block_dim: Some([64, 1, 1]),
            grid_dim: Some([1, 1, 1]),
            ..Default::default()
        };
        let quiet = HumanStyle {
            quiet: true,
            ..HumanStyle::default()
        };
        let loud = render("w.cu", text, &options, HumanStyle::default());
        assert!(loud.contains("warning[redundant-barrier]"), "{loud}");
        assert!(loud.contains("checked 1 kernel"), "{loud}");
        assert_eq!(render("w.cu", text, &options, quiet.clone()), "");
        let denied = render(
            "w.cu",
            text,
            &options,
            HumanStyle {
                policy: FailPolicy {
                    deny_warnings: true,
                    ..FailPolicy::default()
                },
                ..quiet.clone()
            },
        );
        assert!(denied.contains("warning[redundant-barrier]"), "{denied}");
        assert!(!denied.contains("checked"), "{denied}");
    }

    /// Lists break between items and quotes stay whole where they fit;
    /// a word wider than a line stands alone.
    #[test]
    fn wrapping_breaks_between_items_and_keeps_quotes_whole() {
        let text = "launch: block (16,16,1), grid symbolic; blockDim.z == 1, `gridDim.x == ((wB) / (blockDim.x))`, gridDim.z == 1";
        let lines = wrap(text, 40, 40);
        assert!(lines.iter().all(|l| l.chars().count() <= 40), "{lines:?}");
        assert!(lines
            .iter()
            .any(|l| l.contains("`gridDim.x == ((wB) / (blockDim.x))`")));
        assert!(
            lines.iter().any(|l| l.contains("blockDim.z == 1,")),
            "{lines:?}"
        );
        assert_eq!(lines.join(" "), text);
        let long = "x".repeat(50);
        assert_eq!(wrap(&format!("a {long} b"), 20, 20), vec!["a", &long, "b"]);
    }

    /// A headline too long for its line is cut at the last `: ` that fits,
    /// and the rest becomes a note.
    #[test]
    fn long_headlines_are_cut_at_a_colon() {
        let (head, rest) = split_headline("unknown: could not decide: timeout after 10 ms", 30);
        assert_eq!(head, "unknown: could not decide");
        assert_eq!(rest.as_deref(), Some("timeout after 10 ms"));
        let (head, rest) = split_headline("short", 30);
        assert_eq!((head.as_str(), rest), ("short", None));
        let (head, rest) = split_headline("no colon in this rather long sentence at all", 20);
        assert!(head.chars().count() <= 20, "{head}");
        assert_eq!(
            format!("{head} {}", rest.unwrap()),
            "no colon in this rather long sentence at all"
        );
    }

    #[test]
    fn colour_only_on_a_terminal_without_no_color() {
        assert!(color_wanted(None, true));
        assert!(color_wanted(Some("".into()), true));
        assert!(!color_wanted(Some("1".into()), true));
        assert!(!color_wanted(None, false));
    }

    /// The definition: 1 + the newlines before the offset; 1 + the
    /// characters since the last newline.
    fn by_scanning(text: &str, off: usize) -> (usize, usize) {
        let before = &text[..off];
        let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
        (
            before.matches('\n').count() + 1,
            text[line_start..off].chars().count() + 1,
        )
    }

    #[test]
    fn line_index_agrees_with_scanning_at_every_offset() {
        for text in ["", "a", "\n", "ab\ncd\n", "é\n\nxÿz\n€", "\n\nend"] {
            let index = LineIndex::new(text);
            for off in 0..=text.len() + 2 {
                let clamped = off.min(text.len());
                let mut b = clamped;
                while !text.is_char_boundary(b) {
                    b -= 1;
                }
                assert_eq!(
                    index.line_col(off as u32),
                    by_scanning(text, b),
                    "{text:?} at {off}"
                );
            }
        }
    }

    #[test]
    fn sarif_locations_are_relative_under_the_working_folder_and_file_uris_elsewhere() {
        use std::path::Path;
        let base = Path::new("/home/me/proj");
        assert_eq!(
            artifact_location(Path::new("/home/me/proj/src/k.cu"), Some(base)),
            json!({"uri": "src/k.cu", "uriBaseId": "SRCROOT"})
        );
        assert_eq!(
            artifact_location(Path::new("./src/my kernels/k.cu"), Some(base)),
            json!({"uri": "src/my%20kernels/k.cu", "uriBaseId": "SRCROOT"})
        );
        assert_eq!(
            artifact_location(Path::new("/opt/cuda/x#1.cuh"), Some(base)),
            json!({"uri": "file:///opt/cuda/x%231.cuh"})
        );
        assert_eq!(
            artifact_location(Path::new("/opt/k.cu"), None),
            json!({"uri": "file:///opt/k.cu"})
        );
    }
}
