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

    /// The point (line, byte column, offset) of byte `offset` of `text`,
    /// clamped into the text and rounded down to a character boundary.
    pub fn point(&self, text: &str, offset: usize) -> Point {
        let mut off = offset.min(text.len());
        while off > 0 && !text.is_char_boundary(off) {
            off -= 1;
        }
        let (line, start) = self.line_of(off);
        Point {
            line: line as u32,
            column: (off - start) as u32,
            offset: off as u32,
        }
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
    /// Two threads write the same value to one location without
    /// synchronisation: a race the hardware makes harmless (one of the
    /// equal values wins); a hint, a `data-race` with `--strict-benign`.
    BenignRace,
    BarrierDivergence,
    RedundantBarrier,
    NotVerified,
    Unknown,
    SyntaxError,
    /// Information about the analysis itself (a directive flag that was
    /// ignored); it says nothing about the kernel's behaviour.
    Note,
    /// A checked claim of the code (`__assert`, a loop invariant, a device
    /// function's precondition) that a thread can violate.
    Assertion,
    /// The assumptions the code states (`__requires`, `__assume`...): the
    /// kernel's verdict holds only under them.
    Assumption,
    /// The project model: a local header that cannot be found, a system
    /// header outside the built-in model, an unreadable build database.
    Include,
    /// `--deterministic`: two orders of the atomic operations (both allowed
    /// by the barriers) end in different final memory.
    ScheduleDependent,
}

impl FindingKind {
    /// The stable code, also the anchor in `docs/diagnostics.md`.
    pub fn code(self) -> &'static str {
        match self {
            FindingKind::DataRace => "data-race",
            FindingKind::BenignRace => "benign-race",
            FindingKind::BarrierDivergence => "barrier-divergence",
            FindingKind::RedundantBarrier => "redundant-barrier",
            FindingKind::NotVerified => "not-verified",
            FindingKind::Unknown => "unknown",
            FindingKind::SyntaxError => "syntax-error",
            FindingKind::Note => "note",
            FindingKind::Assertion => "assertion",
            FindingKind::Assumption => "assumption",
            FindingKind::Include => "include",
            FindingKind::ScheduleDependent => "schedule-dependent",
        }
    }

    pub fn severity(self) -> Severity {
        match self {
            FindingKind::DataRace
            | FindingKind::BarrierDivergence
            | FindingKind::SyntaxError
            | FindingKind::Assertion => Severity::Error,
            FindingKind::RedundantBarrier => Severity::Warning,
            FindingKind::Include | FindingKind::ScheduleDependent => Severity::Warning,
            FindingKind::NotVerified
            | FindingKind::Unknown
            | FindingKind::Note
            | FindingKind::Assumption => Severity::Information,
            FindingKind::BenignRace => Severity::Hint,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Error,
    Warning,
    Information,
    /// Below information: a remark the code may ignore (`benign-race`).
    Hint,
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

    /// A launch size (`blockDim`, `gridDim`) as its three components, or
    /// `None` when the witness does not mention it.
    pub fn launch_dim(&self, name: &str) -> Option<[Option<i64>; 3]> {
        let comps = ["x", "y", "z"].map(|c| self.value(&format!("{name}.{c}")));
        comps.iter().any(Option::is_some).then_some(comps)
    }

    /// The colliding index, one entry per array dimension (empty for a
    /// divergence witness).
    pub fn index(&self) -> Vec<i64> {
        (0..)
            .map_while(|i| self.value(&format!("index[{i}]")))
            .collect()
    }

    /// Parameters, loop variables and other values: everything but the
    /// launch sizes and the index.
    pub fn other_values(&self) -> impl Iterator<Item = &(String, i64)> {
        self.values.iter().filter(|(name, _)| {
            !(name.starts_with("blockDim.")
                || name.starts_with("gridDim.")
                || name.starts_with("index["))
        })
    }

    /// The one text of a witness, shared by the CLI, the SARIF message and
    /// the editor's hover: `thread (1,0,0) of block (0,0,0) and thread
    /// (0,0,0) of block (0,0,0); blockDim = (2,1,1), index = [1], offset = 1`.
    pub fn describe(&self) -> String {
        let tuple = |v: &[i64; 3]| format!("({},{},{})", v[0], v[1], v[2]);
        let threads: Vec<String> = self
            .threads
            .iter()
            .map(|t| {
                format!(
                    "thread {} of block {}",
                    tuple(&t.thread_idx),
                    tuple(&t.block_idx)
                )
            })
            .collect();
        let mut parts = Vec::new();
        for dim in ["blockDim", "gridDim"] {
            if let Some(comps) = self.launch_dim(dim) {
                let shown: Vec<String> = comps
                    .iter()
                    .map(|c| c.map_or("?".to_string(), |v| v.to_string()))
                    .collect();
                parts.push(format!("{dim} = ({})", shown.join(",")));
            }
        }
        let index = self.index();
        if !index.is_empty() {
            let shown: Vec<String> = index.iter().map(i64::to_string).collect();
            parts.push(format!("index = [{}]", shown.join("][")));
        }
        parts.extend(self.other_values().map(|(n, v)| format!("{n} = {v}")));
        let mut out = threads.join(" and ");
        if !parts.is_empty() {
            if !out.is_empty() {
                out.push_str("; ");
            }
            out.push_str(&parts.join(", "));
        }
        out
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
    /// A checked claim of the code (`__assert`...) can be violated.
    AssertionFailed,
}

impl KernelStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            KernelStatus::Verified => "verified",
            KernelStatus::Racy => "racy",
            KernelStatus::Divergent => "divergent",
            KernelStatus::Unknown => "unknown",
            KernelStatus::NotVerified => "not-verified",
            KernelStatus::AssertionFailed => "assertion-failed",
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
    /// The launch assumption the kernel was checked under, when it came from
    /// the code's own launch sites (`block (16,16,1), ... at host.cu:42`).
    pub launch: Option<String>,
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
    /// Pairs of conflicting accesses (per array and thread relation) the
    /// race pre-checks considered, and those decided by exact arithmetic
    /// without Z3.
    pub access_pairs: u64,
    pub access_pairs_without_z3: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.queries_run += o.queries_run;
        self.queries_reused += o.queries_reused;
        self.kernels_analysed += o.kernels_analysed;
        self.kernels_reused += o.kernels_reused;
        self.kernels_over_budget += o.kernels_over_budget;
        self.access_pairs += o.access_pairs;
        self.access_pairs_without_z3 += o.access_pairs_without_z3;
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
