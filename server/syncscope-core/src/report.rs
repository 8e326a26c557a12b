//! Plain-data results of an analysis: findings, kernel verdicts and witnesses.
//!
//! Architecture Invariant: nothing here knows of LSP, JSON-RPC or async. The
//! CLI and the language server convert these types into their own formats.

use serde::Serialize;

/// A position in a source file: 0-based line, 0-based byte column, byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Default)]
pub struct Point {
    pub line: u32,
    /// Byte column within the line.
    pub column: u32,
    /// Byte offset from the start of the file.
    pub offset: u32,
}

/// Byte offsets of the line starts of a text: the one table behind every
/// offset → line conversion (the CLI's report positions, the server's LSP
/// positions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineStarts(Vec<usize>);

impl LineStarts {
    pub fn new(text: &str) -> LineStarts {
        LineStarts(
            std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
        )
    }

    /// The number of lines (one more than the newlines).
    pub fn count(&self) -> usize {
        self.0.len()
    }

    /// The byte offset where 0-based `line` starts.
    pub fn start(&self, line: usize) -> Option<usize> {
        self.0.get(line).copied()
    }

    /// The 0-based line holding byte `offset`, and that line's start.
    pub fn line_of(&self, offset: usize) -> (usize, usize) {
        let line = self.0.partition_point(|&s| s <= offset) - 1;
        (line, self.0[line])
    }
}

/// A half-open byte range with its line/column end points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Default)]
pub struct Span {
    pub start: Point,
    pub end: Point,
}

impl Span {
    pub fn from_node(node: &tree_sitter::Node) -> Span {
        let s = node.start_position();
        let e = node.end_position();
        Span {
            start: Point {
                line: s.row as u32,
                column: s.column as u32,
                offset: node.start_byte() as u32,
            },
            end: Point {
                line: e.row as u32,
                column: e.column as u32,
                offset: node.end_byte() as u32,
            },
        }
    }

    pub fn contains(&self, offset: u32) -> bool {
        self.start.offset <= offset && offset <= self.end.offset
    }

    /// Moves both ends by `delta` bytes (lines and columns are kept).
    pub fn shift_offsets(&mut self, delta: i64) {
        for p in [&mut self.start, &mut self.end] {
            p.offset = (i64::from(p.offset) + delta).clamp(0, i64::from(u32::MAX)) as u32;
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    DataRace,
    BarrierDivergence,
    RedundantBarrier,
    NotVerified,
    Unknown,
    SyntaxError,
}

impl FindingKind {
    /// The stable code, also the anchor in `docs/diagnostics.md`.
    pub fn code(self) -> &'static str {
        match self {
            FindingKind::DataRace => "data-race",
            FindingKind::BarrierDivergence => "barrier-divergence",
            FindingKind::RedundantBarrier => "redundant-barrier",
            FindingKind::NotVerified => "not-verified",
            FindingKind::Unknown => "unknown",
            FindingKind::SyntaxError => "syntax-error",
        }
    }

    pub fn severity(self) -> Severity {
        match self {
            FindingKind::DataRace | FindingKind::BarrierDivergence | FindingKind::SyntaxError => {
                Severity::Error
            }
            FindingKind::RedundantBarrier => Severity::Warning,
            FindingKind::NotVerified | FindingKind::Unknown => Severity::Information,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Error,
    Warning,
    Information,
}

/// One thread of a witness.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WitnessThread {
    pub thread_idx: [i64; 3],
    pub block_idx: [i64; 3],
}

/// A concrete counterexample: two threads and the values of everything else.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Witness {
    pub threads: Vec<WitnessThread>,
    /// Other symbolic values by display name: `blockDim.x`, parameters, loop
    /// variables (`i@thread1` when the two threads differ), `index` (the
    /// colliding index, one entry per dimension as `index[0]`...).
    pub values: Vec<(String, i64)>,
}

impl Witness {
    pub fn value(&self, name: &str) -> Option<i64> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Related {
    pub span: Span,
    pub message: String,
}

/// A text edit on the analysed file (byte offsets into the text that was analysed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextEdit {
    pub span: Span,
    pub new_text: String,
}

/// A quick-fix. `verified`: the kernel was checked again with the fix
/// applied (in the model) and the finding is gone with no new error; only
/// such a fix is offered as the preferred one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fix {
    pub title: String,
    pub edits: Vec<TextEdit>,
    pub verified: bool,
}

/// Two accesses that race (of a grouped race finding): spans and source texts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RacingPair {
    pub first: Span,
    pub first_text: String,
    pub second: Span,
    pub second_text: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub kind: FindingKind,
    pub severity: Severity,
    /// The kernel the finding belongs to, if any (syntax errors have none).
    pub kernel: Option<String>,
    pub message: String,
    pub span: Span,
    pub related: Vec<Related>,
    /// A race finding groups the racing pairs one barrier would separate:
    /// every pair: the witness's pair first, the others in program order.
    pub pairs: Vec<RacingPair>,
    pub witness: Option<Witness>,
    pub fixes: Vec<Fix>,
}

impl Finding {
    /// Moves every span of the finding (related locations and quick-fix
    /// edits included) by `delta` bytes.
    pub fn shift_offsets(&mut self, delta: i64) {
        self.span.shift_offsets(delta);
        for r in &mut self.related {
            r.span.shift_offsets(delta);
        }
        for p in &mut self.pairs {
            p.first.shift_offsets(delta);
            p.second.shift_offsets(delta);
        }
        for e in self.fixes.iter_mut().flat_map(|f| &mut f.edits) {
            e.span.shift_offsets(delta);
        }
    }

    pub fn new(kind: FindingKind, kernel: Option<&str>, span: Span, message: String) -> Finding {
        Finding {
            kind,
            severity: kind.severity(),
            kernel: kernel.map(str::to_string),
            message,
            span,
            related: Vec::new(),
            pairs: Vec::new(),
            witness: None,
            fixes: Vec::new(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum KernelStatus {
    Verified,
    Racy,
    Divergent,
    Unknown,
    NotVerified,
}

impl KernelStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            KernelStatus::Verified => "verified",
            KernelStatus::Racy => "racy",
            KernelStatus::Divergent => "divergent",
            KernelStatus::Unknown => "unknown",
            KernelStatus::NotVerified => "not-verified",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KernelReport {
    pub name: String,
    /// The span of the kernel's name in its definition.
    pub span: Span,
    pub status: KernelStatus,
    pub millis: u64,
    /// SMT queries this kernel needed, and how many of them came from the cache.
    pub queries: u32,
    pub queries_reused: u32,
}

/// Counters of an analysis run; the server exposes them for tests and logs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    pub queries_run: u64,
    pub queries_reused: u64,
    pub kernels_analysed: u64,
    pub kernels_reused: u64,
    /// Kernels whose verification stopped at its time budget.
    pub kernels_over_budget: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.queries_run += o.queries_run;
        self.queries_reused += o.queries_reused;
        self.kernels_analysed += o.kernels_analysed;
        self.kernels_reused += o.kernels_reused;
        self.kernels_over_budget += o.kernels_over_budget;
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FileReport {
    pub findings: Vec<Finding>,
    pub kernels: Vec<KernelReport>,
    pub stats: Stats,
}

/// Progress of a running analysis, read from other threads (the server's
/// `$/progress` and early diagnostics, the CLI's progress line): the kernels
/// to verify, how many are done, and the findings of those done so far
/// (reused kernels' first), so that results show as they come.
#[derive(Debug, Default)]
pub struct Progress {
    pub total: std::sync::atomic::AtomicUsize,
    pub done: std::sync::atomic::AtomicUsize,
    /// Whether findings are kept (early results); counts only otherwise.
    pub keep_findings: bool,
    pub findings: std::sync::Mutex<Vec<Finding>>,
}

impl Progress {
    /// Progress that also keeps the findings so far.
    pub fn with_findings() -> Progress {
        Progress {
            keep_findings: true,
            ..Progress::default()
        }
    }

    /// Adds the findings of one finished kernel.
    pub fn kernel_done(&self, findings: &[Finding]) {
        if self.keep_findings {
            if let Ok(mut f) = self.findings.lock() {
                f.extend_from_slice(findings);
            }
        }
        self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// (done, total) kernels.
    pub fn counts(&self) -> (usize, usize) {
        use std::sync::atomic::Ordering::Relaxed;
        (self.done.load(Relaxed), self.total.load(Relaxed))
    }

    /// The findings so far.
    pub fn findings(&self) -> Vec<Finding> {
        self.findings.lock().map(|f| f.clone()).unwrap_or_default()
    }
}
