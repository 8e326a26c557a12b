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

/// `text` cut to at most `max` characters, the cut marked by `...` (a
/// headline's quote of an expression the snippet shows whole).
pub fn elide(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max.saturating_sub(3)).collect();
    format!("{}...", kept.trim_end())
}

/// What the outside world knows of a finding kind, declared once in
/// [`finding_kinds!`]: every list of kinds (the SARIF rules, `--fail-on`'s
/// accepted names and its help, the JSON `kind` strings, the LSP diagnostic
/// codes, the corpus harness's marker kinds, `docs/diagnostics.md`'s
/// sections) is derived from [`FindingKind::ALL`] and this record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindInfo {
    /// The stable code: the JSON `kind`, the SARIF `ruleId`, the LSP
    /// diagnostic code, the name `--fail-on` accepts, the corpus marker
    /// (`//~ data-race`) and the anchor of its section in
    /// `docs/diagnostics.md` (`## data-race`).
    pub code: &'static str,
    pub severity: Severity,
    /// One sentence: the SARIF rule's short description and `--help`.
    pub description: &'static str,
    /// Corpus files mark every line such a finding touches (`//~ code`),
    /// and the harness reports a finding of the kind on an unmarked line.
    /// The others are notes about the analysis (or `unknown`, never
    /// expected) and are checked otherwise.
    pub corpus_marker: bool,
}

/// The one declaration of the finding kinds: the enum, its order (the SARIF
/// rule index), and each kind's [`KindInfo`]. A new kind is one entry here
/// plus the code that reports it (and its section in `docs/diagnostics.md`,
/// which a test demands).
macro_rules! finding_kinds {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident {
            code: $code:literal,
            severity: $severity:ident,
            corpus_marker: $marker:literal,
            description: $description:literal $(,)?
        }
    ),* $(,)?) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum FindingKind {
            $($(#[doc = $doc])* $variant,)*
        }

        impl FindingKind {
            /// Every kind, in declaration order (`kind as usize` is its index).
            pub const ALL: &'static [FindingKind] = &[$(FindingKind::$variant),*];

            /// Everything declared about this kind.
            pub const fn info(self) -> &'static KindInfo {
                match self {
                    $(FindingKind::$variant => &KindInfo {
                        code: $code,
                        severity: Severity::$severity,
                        description: $description,
                        corpus_marker: $marker,
                    },)*
                }
            }
        }
    };
}

finding_kinds! {
    DataRace {
        code: "data-race",
        severity: Error,
        corpus_marker: true,
        description: "Two threads access the same memory location without synchronisation and at least one writes.",
    },
    /// Two threads write the same value to one location without
    /// synchronisation: a race the hardware makes harmless (one of the
    /// equal values wins); a hint, a `data-race` with `--strict-benign`.
    BenignRace {
        code: "benign-race",
        severity: Hint,
        corpus_marker: true,
        description: "Two threads write the same value to the same location without synchronisation (a data race with --strict-benign).",
    },
    BarrierDivergence {
        code: "barrier-divergence",
        severity: Error,
        corpus_marker: true,
        description: "A barrier that some threads of a block reach and others do not.",
    },
    RedundantBarrier {
        code: "redundant-barrier",
        severity: Warning,
        corpus_marker: true,
        description: "A barrier whose removal leaves the kernel verified (a proof).",
    },
    NotVerified {
        code: "not-verified",
        severity: Information,
        corpus_marker: true,
        description: "A construct the model cannot represent; the kernel is not verified.",
    },
    Unknown {
        code: "unknown",
        severity: Information,
        corpus_marker: false,
        description: "The solver could not decide within its limits.",
    },
    /// A race or divergence the model found whose witness did not occur
    /// when the kernel was run from source on the simulator: possible, not
    /// definite (the model's witness is not an execution).
    Unconfirmed {
        code: "unconfirmed",
        severity: Warning,
        corpus_marker: true,
        description: "A race or divergence the model reports whose witness did not occur when the kernel was run from source: possible, not definite.",
    },
    SyntaxError {
        code: "syntax-error",
        severity: Error,
        corpus_marker: true,
        description: "The file does not parse as CUDA.",
    },
    /// Information about the analysis itself (a directive flag that was
    /// ignored); it says nothing about the kernel's behaviour.
    Note {
        code: "note",
        severity: Information,
        corpus_marker: false,
        description: "Information about the analysis itself (an ignored directive flag).",
    },
    /// A checked claim of the code (`__assert`, a loop invariant, a device
    /// function's precondition) that a thread can violate.
    Assertion {
        code: "assertion",
        severity: Error,
        corpus_marker: true,
        description: "A claim the code makes (`__assert`, a loop invariant, a device function's `__requires`) that a thread can violate.",
    },
    /// The assumptions the code states (`__requires`, `__assume`...): the
    /// kernel's verdict holds only under them.
    Assumption {
        code: "assumption",
        severity: Information,
        corpus_marker: false,
        description: "The assumptions the code states (`__requires`, `__assume`...); the kernel's verdict holds only under them.",
    },
    /// The project model: a local header that cannot be found, a system
    /// header outside the built-in model, an unreadable build database.
    Include {
        code: "include",
        severity: Warning,
        corpus_marker: false,
        description: "A header the project model could not read (missing local header, unknown system header).",
    },
    /// `--deterministic`: two orders of the atomic operations (both allowed
    /// by the barriers) end in different final memory.
    ScheduleDependent {
        code: "schedule-dependent",
        severity: Warning,
        corpus_marker: true,
        description: "With --deterministic: two orders of the atomic operations that the barriers allow end in different final memory.",
    },
}

impl FindingKind {
    /// The stable code, also the anchor in `docs/diagnostics.md`.
    pub const fn code(self) -> &'static str {
        self.info().code
    }

    pub const fn severity(self) -> Severity {
        self.info().severity
    }

    /// The kind whose code is `code`.
    pub fn from_code(code: &str) -> Option<FindingKind> {
        FindingKind::ALL.iter().copied().find(|k| k.code() == code)
    }

    /// The position in [`FindingKind::ALL`] (the SARIF rule index).
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The JSON `kind` is the code: one spelling everywhere.
impl Serialize for FindingKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
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

/// The launch a simulator runs for a witness ([`Witness::simulated_launch`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WitnessLaunch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Only the blocks below this in every dimension run (`None`: all).
    pub blocks_run: Option<[u32; 3]>,
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

    /// The launch that runs this witness on a simulator: each size the
    /// witness's, else `fixed`'s (a size the kernel never reads), else 1;
    /// and, when it has more than `max_threads` threads, the blocks up to
    /// the witness's to run (the others never run: one schedule of the same
    /// launch, `gridDim` unchanged). `Err` holds the launch when even those
    /// are too many.
    pub fn simulated_launch(
        &self,
        block: Option<[u32; 3]>,
        grid: Option<[u32; 3]>,
        max_threads: u64,
    ) -> Result<WitnessLaunch, WitnessLaunch> {
        let dims = |name: &str, fixed: Option<[u32; 3]>| -> [u32; 3] {
            let from_witness = self.launch_dim(name).unwrap_or([None, None, None]);
            let mut out = [1u32; 3];
            for d in 0..3 {
                out[d] = from_witness[d]
                    .and_then(|v| u32::try_from(v).ok())
                    .or(fixed.map(|f| f[d]))
                    .unwrap_or(1)
                    .max(1);
            }
            out
        };
        let mut launch = WitnessLaunch {
            grid: dims("gridDim", grid),
            block: dims("blockDim", block),
            blocks_run: None,
        };
        let threads = |grid: &[u32; 3]| -> u64 {
            grid.iter()
                .chain(launch.block.iter())
                .map(|&x| u64::from(x))
                .product()
        };
        if threads(&launch.grid) <= max_threads {
            return Ok(launch);
        }
        let mut run = [1u32; 3];
        for (d, size) in run.iter_mut().enumerate() {
            let highest = self
                .threads
                .iter()
                .map(|t| t.block_idx[d])
                .max()
                .unwrap_or(0);
            *size = u32::try_from(highest + 1)
                .unwrap_or(u32::MAX)
                .min(launch.grid[d]);
        }
        let fits = threads(&run) <= max_threads;
        launch.blocks_run = Some(run);
        if fits {
            Ok(launch)
        } else {
            Err(launch)
        }
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
        let parts = self.value_parts();
        let mut out = threads.join(" and ");
        if !parts.is_empty() {
            if !out.is_empty() {
                out.push_str("; ");
            }
            out.push_str(&parts.join(", "));
        }
        out
    }

    /// Everything but the threads, one `name = value` each: the launch
    /// sizes, the colliding index, then parameters and loop variables.
    pub fn value_parts(&self) -> Vec<String> {
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
        parts
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
/// such a fix is offered as the preferred one. `precondition`: the fix
/// states an assumption on the kernel's inputs (`__requires`) rather than
/// changing what the code does: the race stays for the launches it rules
/// out, so it is listed after a code fix and never preferred.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fix {
    pub title: String,
    pub edits: Vec<TextEdit>,
    pub verified: bool,
    pub precondition: bool,
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
    /// The whole story in one sentence: the JSON `message`, SARIF, the
    /// editor's diagnostic.
    pub message: String,
    /// A short first line for a terminal (the kind's cell and the two
    /// accesses of a race), when the message is longer; the threads,
    /// values and launch it leaves out are in the witness and `notes`.
    pub headline: Option<String>,
    /// Facts a terminal prints as `= note:` lines under the finding (the
    /// launch a race happens under); the message says them too.
    pub notes: Vec<String>,
    pub span: Span,
    pub related: Vec<Related>,
    /// A race finding groups the racing pairs one barrier would separate:
    /// every pair: the witness's pair first, the others in program order.
    pub pairs: Vec<RacingPair>,
    pub witness: Option<Witness>,
    pub fixes: Vec<Fix>,
    /// The launches it holds under, when its kernel is checked under
    /// several (distinct launch sites or template instantiations): one
    /// finding per cause, naming each launch (empty otherwise).
    pub launches: Vec<String>,
    /// What running the witness from source on the independent simulator
    /// showed (races and divergences; `None` for other kinds and for
    /// kernels assumed to run in lock-step warps).
    pub source_replay: Option<SourceReplay>,
    /// For a race: the condition on the kernel's scalar parameters under
    /// which it can happen (computed with the quick-fixes, after the
    /// diagnostics; `None` when not computed or none was proved).
    pub race_condition: Option<RaceCondition>,
}

/// The condition on the kernel's scalar parameters under which a race can
/// happen: a witness may use values the host never passes (`width = -2`)
/// when the tool cannot follow the host, and this says at once whether
/// the race is the user's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RaceCondition {
    /// The race's query mentions no parameter: it happens whatever values
    /// the parameters have.
    EveryValue,
    /// It can happen only when `condition` holds (a C expression over the
    /// parameters): the kernel was verified free of it under `assumption`
    /// (the negation of `condition`) assumed at its start.
    Only {
        condition: String,
        assumption: String,
    },
    /// It can happen only when an input array the kernel reads breaks a
    /// property of its contents that no launch site shows (two equal
    /// values where a scatter needs distinct ones): `property` words it
    /// (`` `scan` holds distinct values at distinct indices ``), and the
    /// kernel was verified free of the race under `assumption`
    /// (`__distinct(scan)`, the annotation language's form) assumed.
    UnlessInput {
        property: String,
        assumption: String,
    },
}

impl RaceCondition {
    /// The one text of the condition (terminal note, hover, JSON summary).
    pub fn describe(&self) -> String {
        match self {
            RaceCondition::EveryValue => {
                "races for every value of the kernel's parameters".to_string()
            }
            RaceCondition::Only { condition, .. } => {
                format!("races only when `{condition}`")
            }
            RaceCondition::UnlessInput { property, .. } => format!("races unless {property}"),
        }
    }

    /// The condition as an expression of the annotation language (the
    /// JSON's `condition`): `None` for every value.
    pub fn expression(&self) -> Option<String> {
        match self {
            RaceCondition::EveryValue => None,
            RaceCondition::Only { condition, .. } => Some(condition.clone()),
            RaceCondition::UnlessInput { assumption, .. } => Some(format!("!{assumption}")),
        }
    }
}

/// The outcome of running a race's or divergence's witness from source on
/// the simulator (`syncscope-sim`), which shares no code with the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceReplay {
    /// The race or divergence occurred: an execution that exists.
    Reproduced,
    /// Every run of the witness's launch ended without it: the finding is
    /// a possible one (`unknown`), not a definite one.
    Absent,
    /// The simulator could not decide (a construct it does not model, a
    /// launch too large for a CPU): the witness replays on the model only.
    NotRun { why: String },
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
            headline: None,
            notes: Vec::new(),
            span,
            related: Vec::new(),
            pairs: Vec::new(),
            witness: None,
            fixes: Vec::new(),
            source_replay: None,
            launches: Vec::new(),
            race_condition: None,
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
    /// the code's own launch sites (`block (16,16,1), ... at host.cu:42`),
    /// or from the sizes the user fixed, each naming where it was written
    /// (`blockDim = (64,1,1) (from --block-dim)`).
    pub launch: Option<String>,
    /// Why no launch of the kernel is assumed, when the project's code was
    /// read for its launches and none was understood: no launch site found
    /// (and where it was looked for), or the uses that may launch it in ways
    /// not understood. The kernel is then checked for a launch of any size
    /// with any arguments, and a witness may use one the host never makes.
    pub launch_note: Option<String>,
    /// The launch dimensions the kernel was checked with as 1 because it
    /// never reads them (`blockDim.y`, `gridDim.z`, ...) and no launch
    /// fixed them: a 1-D kernel is checked for 1-D launches. Said in the
    /// launch note, since "any size" is not quite any size then.
    #[serde(skip)]
    pub dims_taken_as_one: Vec<&'static str>,
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

    /// Adds findings of a kernel known before its queries (the parts of
    /// its model it cannot represent, which make it `not-verified` before
    /// the solver is asked anything): early results show them while the
    /// kernel's queries run.
    pub fn kernel_known(&self, findings: &[Finding]) {
        if self.keep_findings {
            if let Ok(mut f) = self.findings.lock() {
                f.extend_from_slice(findings);
            }
        }
    }

    /// Adds the findings of one finished kernel (those it made known
    /// before its queries are not added twice).
    pub fn kernel_done(&self, findings: &[Finding]) {
        if self.keep_findings {
            if let Ok(mut f) = self.findings.lock() {
                let fresh: Vec<Finding> = findings
                    .iter()
                    .filter(|x| !f.contains(x))
                    .cloned()
                    .collect();
                f.extend(fresh);
            }
        }
        self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// How many findings are kept so far.
    pub fn findings_kept(&self) -> usize {
        self.findings.lock().map(|f| f.len()).unwrap_or(0)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `ALL` lists each kind once, at its own index, under a code of its
    /// own that is also its JSON spelling.
    #[test]
    fn every_kind_has_its_own_index_and_code() {
        let mut codes = std::collections::BTreeSet::new();
        for (i, k) in FindingKind::ALL.iter().enumerate() {
            assert_eq!(k.index(), i, "{k:?}");
            assert!(codes.insert(k.code()), "code {} twice", k.code());
            assert_eq!(FindingKind::from_code(k.code()), Some(*k));
            assert_eq!(
                serde_json::to_value(k).unwrap(),
                serde_json::json!(k.code())
            );
            assert!(!k.info().description.is_empty(), "{k:?}");
        }
        assert_eq!(FindingKind::from_code("no-such-kind"), None);
    }
}
