//! Conversions from core results to LSP types: ranges, diagnostics, code
//! actions, code lenses and the `syncscope/status` payload.

use crate::document::{Encoding, LineIndex};
use std::collections::HashMap;
use syncscope_core::{Finding, FindingKind, Fix, KernelReport, KernelStatus, Severity, Span};
use tower_lsp_server::lsp_types::{
    CodeAction, CodeActionKind, CodeDescription, CodeLens, Command, Diagnostic,
    DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag, Location, NumberOrString,
    Range, TextEdit, Uri, WorkspaceEdit,
};

/// `source` of every diagnostic.
pub const SOURCE: &str = "syncscope";
/// Documentation of the diagnostic codes; the code is the anchor.
pub const DOCS_URL: &str = "https://github.com/syncscope/syncscope/blob/main/docs/diagnostics.md";
/// The command behind the code lenses.
pub const VERIFY_COMMAND: &str = "syncscope.verifyFile";
/// `syncscope equiv` as a command: arguments `[uriA, kernelA, uriB,
/// kernelB]`, result the JSON report of `syncscope equiv --format json`.
pub const COMPARE_COMMAND: &str = "syncscope.compareWith";
/// The client-side command of the "Compare with…" lens: the client picks
/// the other kernel, then runs `COMPARE_COMMAND` on the server.
pub const COMPARE_LENS_COMMAND: &str = "syncscope.compareKernels";

/// Text of an analysed version, for converting its byte spans.
#[derive(Clone, Copy)]
pub struct Source<'a> {
    pub text: &'a str,
    pub index: &'a LineIndex,
    pub encoding: Encoding,
}

impl Source<'_> {
    pub fn range(&self, span: Span) -> Range {
        let start = self
            .index
            .position(self.text, span.start.offset as usize, self.encoding);
        let end = self
            .index
            .position(self.text, span.end.offset as usize, self.encoding);
        Range::new(start, end.max(start))
    }

    pub fn offset_range(&self, start: usize, end: usize) -> Range {
        Range::new(
            self.index.position(self.text, start, self.encoding),
            self.index
                .position(self.text, end.max(start), self.encoding),
        )
    }
}

pub fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Information => DiagnosticSeverity::INFORMATION,
        Severity::Hint => DiagnosticSeverity::HINT,
    }
}

pub fn code_description(code: &str) -> Option<CodeDescription> {
    format!("{DOCS_URL}#{code}")
        .parse()
        .ok()
        .map(|href| CodeDescription { href })
}

/// One finding as a diagnostic on `uri`.
/// At most this many related locations per diagnostic; a last entry counts
/// the rest (a grouped race may list hundreds of racing pairs).
pub const MAX_RELATED: usize = 20;

pub fn diagnostic(uri: &Uri, src: Source, f: &Finding) -> Diagnostic {
    let code = f.kind.code();
    let mut related: Vec<DiagnosticRelatedInformation> = f
        .related
        .iter()
        .take(MAX_RELATED)
        .map(|r| DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), src.range(r.span)),
            message: r.message.clone(),
        })
        .collect();
    if f.related.len() > MAX_RELATED {
        related.push(DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), src.range(f.span)),
            message: format!(
                "and {} more racing accesses (`syncscope check --format=json` lists every pair)",
                f.related.len() - MAX_RELATED
            ),
        });
    }
    Diagnostic {
        range: src.range(f.span),
        severity: Some(severity(f.severity)),
        code: Some(NumberOrString::String(code.to_string())),
        code_description: code_description(code),
        source: Some(SOURCE.to_string()),
        message: f.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        tags: (f.kind == FindingKind::RedundantBarrier).then(|| vec![DiagnosticTag::UNNECESSARY]),
        data: None,
    }
}

/// A diagnostic for an analysis that panicked (at the start of the file).
pub fn internal_error(message: &str) -> Diagnostic {
    Diagnostic {
        range: Range::default(),
        severity: Some(DiagnosticSeverity::ERROR),
        code: Some(NumberOrString::String("internal-error".into())),
        source: Some(SOURCE.to_string()),
        message: format!("syncscope internal error, analysis aborted: {message}"),
        ..Default::default()
    }
}

/// A configuration error as a diagnostic on `syncscope.toml`.
pub fn config_diagnostic(range: Range, message: &str) -> Diagnostic {
    Diagnostic {
        range,
        severity: Some(DiagnosticSeverity::ERROR),
        code: Some(NumberOrString::String("config-error".into())),
        source: Some(SOURCE.to_string()),
        message: message.to_string(),
        ..Default::default()
    }
}

/// One quick-fix code action per fix of the finding; the preferred one is
/// the only fix, and only if it was re-checked (`verified`).
pub fn code_actions(uri: &Uri, src: Source, fixes: &[Fix], diag: &Diagnostic) -> Vec<CodeAction> {
    let code_fixes = fixes.iter().filter(|f| !f.precondition).count();
    fixes
        .iter()
        .map(|fix| {
            let edits: Vec<TextEdit> = fix
                .edits
                .iter()
                .map(|e| TextEdit::new(src.range(e.span), e.new_text.clone()))
                .collect();
            // `Uri` is the key type lsp-types prescribes for `changes`.
            #[allow(clippy::mutable_key_type)]
            let mut changes = HashMap::new();
            changes.insert(uri.clone(), edits);
            CodeAction {
                title: fix.title.clone(),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![diag.clone()]),
                edit: Some(WorkspaceEdit {
                    changes: Some(changes),
                    ..Default::default()
                }),
                // The one verified code fix; an assumption never is.
                is_preferred: Some(fix.verified && !fix.precondition && code_fixes == 1),
                ..Default::default()
            }
        })
        .collect()
}

/// Counts of a kernel's findings by kind, as "2 races, 1 divergent barrier".
pub fn finding_counts(kernel: &str, findings: &[Finding]) -> String {
    let count = |k: FindingKind| {
        findings
            .iter()
            .filter(|f| f.kind == k && f.kernel.as_deref() == Some(kernel))
            .count()
    };
    let plural = |n: usize, one: &str, many: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let mut parts = Vec::new();
    let races = count(FindingKind::DataRace);
    if races > 0 {
        parts.push(plural(races, "race", "races"));
    }
    let div = count(FindingKind::BarrierDivergence);
    if div > 0 {
        parts.push(plural(div, "divergent barrier", "divergent barriers"));
    }
    let red = count(FindingKind::RedundantBarrier);
    if red > 0 {
        parts.push(plural(red, "redundant barrier", "redundant barriers"));
    }
    parts.join(", ")
}

/// The code lens title of a kernel, e.g. "✓ race-free (14 queries, 9 ms)".
pub fn lens_title(k: &KernelReport, findings: &[Finding]) -> String {
    let cost = format!("{} queries, {} ms", k.queries, k.millis);
    let counts = finding_counts(&k.name, findings);
    let detail = if counts.is_empty() {
        cost
    } else {
        format!("{counts}; {cost}")
    };
    match k.status {
        KernelStatus::Verified => format!("✓ race-free ({detail})"),
        KernelStatus::Racy => format!("✗ racy ({detail})"),
        KernelStatus::Divergent => format!("✗ divergent ({detail})"),
        KernelStatus::Unknown => format!("? unknown ({detail})"),
        KernelStatus::NotVerified => format!("– not verified ({detail})"),
        KernelStatus::AssertionFailed => format!("✗ assertion can fail ({detail})"),
    }
}

pub fn code_lens(uri: &Uri, src: Source, k: &KernelReport, findings: &[Finding]) -> CodeLens {
    CodeLens {
        range: src.range(k.span),
        command: Some(Command {
            title: lens_title(k, findings),
            command: VERIFY_COMMAND.to_string(),
            arguments: Some(vec![serde_json::Value::String(uri.as_str().to_string())]),
        }),
        data: None,
    }
}

/// The "Compare with…" lens of a kernel (clients that announce
/// `experimental.compareLens`): arguments `[uri, kernel]`.
pub fn compare_lens(uri: &Uri, src: Source, k: &KernelReport) -> CodeLens {
    CodeLens {
        range: src.range(k.span),
        command: Some(Command {
            title: "⇄ Compare with…".to_string(),
            command: COMPARE_LENS_COMMAND.to_string(),
            arguments: Some(vec![
                serde_json::Value::String(uri.as_str().to_string()),
                serde_json::Value::String(k.name.clone()),
            ]),
        }),
        data: None,
    }
}

/// Rank of a status for "worst kernel wins" (higher is worse).
fn rank(s: KernelStatus) -> u8 {
    match s {
        KernelStatus::Verified => 0,
        KernelStatus::NotVerified => 1,
        KernelStatus::Unknown => 2,
        KernelStatus::AssertionFailed => 3,
        KernelStatus::Divergent => 4,
        KernelStatus::Racy => 5,
    }
}

/// The verdict of a file: its worst kernel status, "verified" without
/// kernels. A file with syntax errors is never "verified" (a kernel may be
/// lost in them): unless a kernel is racy or divergent, its verdict is
/// "syntax-error".
pub fn verdict(kernels: &[KernelReport], syntax_errors: bool) -> &'static str {
    let worst = kernels
        .iter()
        .map(|k| k.status)
        .max_by_key(|s| rank(*s))
        .unwrap_or(KernelStatus::Verified);
    if syntax_errors && rank(worst) < rank(KernelStatus::Divergent) {
        "syntax-error"
    } else {
        worst.as_str()
    }
}

/// The `syncscope/status` params.
pub fn status(
    uri: &Uri,
    version: i32,
    verdict: &str,
    kernels: &[KernelReport],
) -> serde_json::Value {
    serde_json::json!({
        "uri": uri.as_str(),
        "version": version,
        "verdict": verdict,
        "kernels": kernels
            .iter()
            .map(|k| serde_json::json!({ "name": k.name, "status": k.status.as_str() }))
            .collect::<Vec<_>>(),
    })
}

/// The `syncscope/stats` result.
pub fn stats(s: &syncscope_core::Stats) -> serde_json::Value {
    serde_json::json!({
        "queriesRun": s.queries_run,
        "queriesReused": s.queries_reused,
        "kernelsAnalysed": s.kernels_analysed,
        "kernelsReused": s.kernels_reused,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use syncscope_core::{Point, Related, TextEdit as CoreEdit};
    use tower_lsp_server::lsp_types::Position;

    const TEXT: &str = "// é😀\n__global__ void k() {\n  x;\n}\n";

    fn span_of(text: &str, needle: &str) -> Span {
        let start = text.find(needle).unwrap();
        let end = start + needle.len();
        let idx = LineIndex::new(text);
        let p = |o: usize| {
            let pt = idx.point(o);
            Point {
                line: pt.row as u32,
                column: pt.column as u32,
                offset: o as u32,
            }
        };
        Span {
            start: p(start),
            end: p(end),
        }
    }

    fn uri() -> Uri {
        "file:///w/a.cu".parse().unwrap()
    }

    #[test]
    fn ranges_use_the_negotiated_encoding() {
        let idx = LineIndex::new(TEXT);
        let span = Span {
            start: Point {
                line: 0,
                column: 3,
                offset: 3,
            },
            end: Point {
                line: 0,
                column: 9,
                offset: 9,
            },
        };
        let s16 = Source {
            text: TEXT,
            index: &idx,
            encoding: Encoding::Utf16,
        };
        let s8 = Source {
            encoding: Encoding::Utf8,
            ..s16
        };
        assert_eq!(
            s16.range(span),
            Range::new(Position::new(0, 3), Position::new(0, 6))
        );
        assert_eq!(
            s8.range(span),
            Range::new(Position::new(0, 3), Position::new(0, 9))
        );
    }

    #[test]
    fn race_diagnostic_has_code_related_and_link() {
        let idx = LineIndex::new(TEXT);
        let src = Source {
            text: TEXT,
            index: &idx,
            encoding: Encoding::Utf16,
        };
        let mut f = Finding::new(
            FindingKind::DataRace,
            Some("k"),
            span_of(TEXT, "x"),
            "race".into(),
        );
        f.related.push(Related {
            span: span_of(TEXT, "k()"),
            message: "other access".into(),
        });
        let d = diagnostic(&uri(), src, &f);
        assert_eq!(d.severity, Some(DiagnosticSeverity::ERROR));
        assert_eq!(d.code, Some(NumberOrString::String("data-race".into())));
        assert_eq!(d.source.as_deref(), Some("syncscope"));
        assert_eq!(
            d.code_description.unwrap().href.as_str(),
            "https://github.com/syncscope/syncscope/blob/main/docs/diagnostics.md#data-race"
        );
        assert_eq!(
            d.range,
            Range::new(Position::new(2, 2), Position::new(2, 3))
        );
        let rel = d.related_information.unwrap();
        assert_eq!(rel[0].location.range.start, Position::new(1, 16));
        assert_eq!(rel[0].message, "other access");
        assert_eq!(d.tags, None);
    }

    #[test]
    fn benign_race_is_a_hint() {
        let idx = LineIndex::new(TEXT);
        let src = Source {
            text: TEXT,
            index: &idx,
            encoding: Encoding::Utf16,
        };
        let f = Finding::new(
            FindingKind::BenignRace,
            Some("k"),
            span_of(TEXT, "x;"),
            "benign race".into(),
        );
        let d = diagnostic(&uri(), src, &f);
        assert_eq!(d.severity, Some(DiagnosticSeverity::HINT));
        assert_eq!(d.code, Some(NumberOrString::String("benign-race".into())));
    }

    #[test]
    fn redundant_barrier_is_unnecessary_warning_and_info_kinds() {
        let idx = LineIndex::new(TEXT);
        let src = Source {
            text: TEXT,
            index: &idx,
            encoding: Encoding::Utf16,
        };
        let f = Finding::new(
            FindingKind::RedundantBarrier,
            Some("k"),
            span_of(TEXT, "x;"),
            "redundant".into(),
        );
        let d = diagnostic(&uri(), src, &f);
        assert_eq!(d.severity, Some(DiagnosticSeverity::WARNING));
        assert_eq!(d.tags, Some(vec![DiagnosticTag::UNNECESSARY]));
        assert_eq!(d.related_information, None);
        for kind in [FindingKind::NotVerified, FindingKind::Unknown] {
            let f = Finding::new(kind, Some("k"), span_of(TEXT, "x"), "?".into());
            assert_eq!(
                diagnostic(&uri(), src, &f).severity,
                Some(DiagnosticSeverity::INFORMATION)
            );
        }
        let f = Finding::new(
            FindingKind::SyntaxError,
            None,
            span_of(TEXT, "x"),
            "!".into(),
        );
        assert_eq!(
            diagnostic(&uri(), src, &f).severity,
            Some(DiagnosticSeverity::ERROR)
        );
    }

    #[test]
    fn fixes_become_quickfix_actions() {
        let idx = LineIndex::new(TEXT);
        let src = Source {
            text: TEXT,
            index: &idx,
            encoding: Encoding::Utf16,
        };
        let mut f = Finding::new(
            FindingKind::DataRace,
            Some("k"),
            span_of(TEXT, "x"),
            "race".into(),
        );
        f.fixes.push(Fix {
            title: "Insert `__syncthreads()`".into(),
            edits: vec![CoreEdit {
                span: span_of(TEXT, "x;"),
                new_text: "__syncthreads();\n  x;".into(),
            }],
            verified: true,
            precondition: false,
        });
        let d = diagnostic(&uri(), src, &f);
        let actions = code_actions(&uri(), src, &f.fixes, &d);
        assert_eq!(actions.len(), 1);
        let a = &actions[0];
        assert_eq!(a.is_preferred, Some(true));
        // A fix that was not re-checked is never the preferred one.
        f.fixes[0].verified = false;
        assert_eq!(
            code_actions(&uri(), src, &f.fixes, &d)[0].is_preferred,
            Some(false)
        );
        assert_eq!(a.kind, Some(CodeActionKind::QUICKFIX));
        assert_eq!(a.title, "Insert `__syncthreads()`");
        assert_eq!(a.diagnostics.as_ref().unwrap()[0], d);
        let edits = &a.edit.as_ref().unwrap().changes.as_ref().unwrap()[&uri()];
        assert_eq!(
            edits[0].range,
            Range::new(Position::new(2, 2), Position::new(2, 4))
        );
    }

    fn kernel(name: &str, status: KernelStatus) -> KernelReport {
        KernelReport {
            name: name.into(),
            span: Span::default(),
            status,
            millis: 9,
            queries: 14,
            queries_reused: 0,
            launch: None,
            launch_note: None,
            dims_taken_as_one: Vec::new(),
        }
    }

    #[test]
    fn lens_titles_verdicts_and_payloads() {
        let ok = kernel("a", KernelStatus::Verified);
        assert_eq!(lens_title(&ok, &[]), "✓ race-free (14 queries, 9 ms)");
        let racy = kernel("b", KernelStatus::Racy);
        let f = Finding::new(
            FindingKind::DataRace,
            Some("b"),
            Span::default(),
            "r".into(),
        );
        assert_eq!(lens_title(&racy, &[f]), "✗ racy (1 race; 14 queries, 9 ms)");
        assert_eq!(verdict(&[], false), "verified");
        assert_eq!(verdict(&[ok.clone(), racy.clone()], false), "racy");
        assert_eq!(
            verdict(&[ok.clone(), kernel("c", KernelStatus::Unknown)], false),
            "unknown"
        );
        assert_eq!(
            verdict(&[kernel("d", KernelStatus::NotVerified), ok.clone()], false),
            "not-verified"
        );
        // Open bug 5: every kernel lost to syntax errors is not "verified".
        assert_eq!(verdict(&[], true), "syntax-error");
        assert_eq!(verdict(std::slice::from_ref(&ok), true), "syntax-error");
        assert_eq!(
            verdict(&[kernel("e", KernelStatus::Unknown)], true),
            "syntax-error"
        );
        // A race found elsewhere in the file still shows.
        assert_eq!(verdict(&[ok.clone(), racy.clone()], true), "racy");
        assert_eq!(
            verdict(&[kernel("f", KernelStatus::Divergent)], true),
            "divergent"
        );
        let s = status(&uri(), 3, "racy", &[racy]);
        assert_eq!(s["kernels"][0]["status"], "racy");
        assert_eq!(s["version"], 3);
        let lens = code_lens(
            &uri(),
            Source {
                text: TEXT,
                index: &LineIndex::new(TEXT),
                encoding: Encoding::Utf16,
            },
            &ok,
            &[],
        );
        let cmd = lens.command.unwrap();
        assert_eq!(cmd.command, VERIFY_COMMAND);
        assert_eq!(cmd.arguments.unwrap()[0], "file:///w/a.cu");
        let st = stats(&syncscope_core::Stats {
            queries_run: 1,
            queries_reused: 2,
            kernels_analysed: 3,
            kernels_reused: 4,
            kernels_over_budget: 0,
            ..Default::default()
        });
        assert_eq!(st["queriesReused"], 2);
        assert_eq!(st["kernelsReused"], 4);
    }
}
