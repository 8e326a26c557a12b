//! Rendering of reports: human (rustc-like, with carets and colour), JSON
//! (the stable contract) and SARIF 2.1.0 (code-scanning upload).

use serde_json::{json, Value};
use std::fmt::Write;
use std::io::IsTerminal;
use std::path::PathBuf;
use syncscope_core::{FileReport, Finding, LineStarts, Severity, Span};

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

pub fn use_color() -> bool {
    std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
}

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
                "edits": x.edits.iter().map(|e| json!({
                    "range": range_json(text, &e.span),
                    "newText": e.new_text,
                })).collect::<Vec<_>>(),
            }))
            .collect::<Vec<_>>());
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

const RULES: [(&str, &str); 8] = [
    ("data-race", "Two threads access the same memory location without synchronisation and at least one writes."),
    ("barrier-divergence", "A barrier that some threads of a block reach and others do not."),
    ("redundant-barrier", "A barrier whose removal leaves the kernel verified (a proof)."),
    ("not-verified", "A construct the model cannot represent; the kernel is not verified."),
    ("unknown", "The solver could not decide within its limits."),
    ("syntax-error", "The file does not parse as CUDA."),
    ("note", "Information about the analysis itself (an ignored directive flag)."),
    ("include", "A header the project model could not read (missing local header, unknown system header)."),
];

pub fn sarif(results: &[FileResult]) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|(id, d)| {
            json!({
                "id": id,
                "shortDescription": {"text": d},
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
        let uri = r.path.display().to_string().replace('\\', "/");
        let index = LineIndex::new(&r.text);
        for f in &r.report.findings {
            let level = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Information => "note",
            };
            let rule_index = RULES
                .iter()
                .position(|(id, _)| *id == f.kind.code())
                .unwrap_or(0);
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
                    "artifactLocation": {"uri": uri},
                    "region": region(&index, &f.span),
                }}],
                "relatedLocations": f.related.iter().enumerate().map(|(i, rel)| json!({
                    "id": i,
                    "message": {"text": rel.message},
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri},
                        "region": region(&index, &rel.span),
                    }
                })).collect::<Vec<_>>(),
            }));
        }
    }
    let doc = json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
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
                "cudaArch": r.cuda_arch,
            }))).collect::<Vec<_>>()},
        }]
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

/// ANSI colour `code` around `s` when `color` is on.
fn paint(color: bool, code: &str, s: &str) -> String {
    if color {
        format!("\x1b[{code}m{s}\x1b[0m")
    } else {
        s.to_string()
    }
}

pub fn human(results: &[FileResult], color: bool) -> String {
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
        for f in &r.report.findings {
            let (label, code) = match f.severity {
                Severity::Error => ("error", "1;31"),
                Severity::Warning => ("warning", "1;33"),
                Severity::Information => ("info", "1;36"),
            };
            let _ = writeln!(
                out,
                "{}{} {}",
                paint(code, &format!("{label}[{}]", f.kind.code())),
                paint("1", ":"),
                paint("1", &f.message)
            );
            snippet(&mut out, &file, &index, &lines, &f.span, code, color, None);
            for rel in &f.related {
                snippet(
                    &mut out,
                    &file,
                    &index,
                    &lines,
                    &rel.span,
                    "1;34",
                    color,
                    Some(&rel.message),
                );
            }
            if let Some(w) = &f.witness {
                let _ = writeln!(out, "   = witness: {}", w.describe());
            }
            out.push('\n');
        }
        for k in &r.report.kernels {
            nkernels += 1;
            *counts.entry(k.status.as_str()).or_insert(0) += 1;
            if let Some(l) = &k.launch {
                launches.push(format!("`{}` ({file}): {l}", k.name));
            }
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
    // The assumptions the verdicts hold under: launch sites found in the
    // code, and the device pass (__CUDA_ARCH__) the files were read as.
    for l in &launches {
        let _ = writeln!(out, "{} kernel {l}", paint("1;36", "launch:"));
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
    let _ = writeln!(
        out,
        "{} {nkernels} kernel{} in {} file{}: {}",
        paint("1", "checked"),
        if nkernels == 1 { "" } else { "s" },
        results.len(),
        if results.len() == 1 { "" } else { "s" },
        if summary.is_empty() {
            "nothing to verify".to_string()
        } else {
            summary.join(", ")
        }
    );
    out
}

#[allow(clippy::too_many_arguments)]
fn snippet(
    out: &mut String,
    file: &str,
    index: &LineIndex,
    lines: &[&str],
    span: &Span,
    code: &str,
    color: bool,
    note: Option<&str>,
) {
    let paint = |code: &str, s: &str| paint(color, code, s);
    let (line, col) = index.line_col(span.start.offset);
    let (end_line, end_col) = index.line_col(span.end.offset);
    let gutter = line.to_string().len();
    let _ = writeln!(
        out,
        "{}{} {file}:{line}:{col}",
        " ".repeat(gutter),
        paint("1;34", "-->")
    );
    let Some(src) = lines.get(line - 1) else {
        return;
    };
    let _ = writeln!(out, "{} {}", " ".repeat(gutter), paint("1;34", "|"));
    let _ = writeln!(
        out,
        "{} {} {}",
        paint("1;34", &line.to_string()),
        paint("1;34", "|"),
        src
    );
    let width = if end_line == line {
        end_col.saturating_sub(col).max(1)
    } else {
        src.chars().count().saturating_sub(col - 1).max(1)
    };
    let carets = format!("{}{}", " ".repeat(col - 1), "^".repeat(width));
    let _ = writeln!(
        out,
        "{} {} {}{}",
        " ".repeat(gutter),
        paint("1;34", "|"),
        paint(code, &carets),
        note.map(|n| format!(" {}", paint(code, n)))
            .unwrap_or_default()
    );
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
}
