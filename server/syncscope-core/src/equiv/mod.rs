//! Equivalence of two versions of a kernel (`syncscope equiv`, after
//! PUG-para): both leave the same value in every global location, for all
//! inputs and launch sizes, under the same preconditions and launch options.
//!
//! 1. Each version is checked by `check`'s engine first, in its project as
//!    `check` analyses it (headers, build flags, `syncscope.toml`, launch
//!    sites): a version that is not verified race-free is refused (the
//!    question needs a deterministic result), and so is one whose headers
//!    are missing (another program than the build's).
//! 2. Both are lowered again with read values (`Options::track_values`),
//!    under each launch they are compared under ([`Launch`]).
//! 3. A concrete differential search runs both on small launches with
//!    deterministic inputs ([`concrete`]); a difference is a counterexample
//!    that the interpreter itself produced.
//! 4. The proof ([`symbolic`]): a symbolic location, the thread that writes
//!    it in each version, values through shared memory and barriers,
//!    operations on values uninterpreted (commutative); every query unsat.
//!
//! Anything else is `unknown` with its reason; never "equivalent".

mod concrete;
mod symbolic;

use crate::model::{Kernel, VarKind};
use crate::options::{LaunchOverride, Options};
use crate::project::{SearchPaths, Sources};
use crate::report::{FindingKind, KernelStatus, Severity};
use crate::verify::replay::LaunchShape;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// One version: a kernel of a file, analysed as `check` analyses the file.
pub struct Version<'a> {
    /// Its name for messages.
    pub label: &'a str,
    /// The file, analysed in its project (headers found next to it and in
    /// `search`, `compile_commands.json`, launch sites in the project's host
    /// code); `None`: the text alone (a buffer that is no file).
    pub path: Option<&'a Path>,
    pub text: &'a str,
    pub kernel: &'a str,
    /// The file's options: its `syncscope.toml` under the command line, as
    /// `check` layers them (the file's own directives are applied here).
    pub options: &'a Options,
    pub search: &'a SearchPaths,
}

/// A location where the two versions leave different values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterexample {
    pub block_dim: [i64; 3],
    pub grid_dim: [i64; 3],
    /// Scalar parameters of the launch.
    pub params: Vec<(String, i64)>,
    pub array: String,
    pub index: i64,
    /// What each version leaves there (`None`: it does not write it, the
    /// input value stays).
    pub value_a: Option<i64>,
    pub value_b: Option<i64>,
    /// The written value of each version as an expression of the model
    /// (its write statement's text and value), or why there is none.
    pub expr_a: String,
    pub expr_b: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Proved: every query of the proof was unsat.
    Equivalent,
    /// A difference, found and replayed on the concrete interpreter.
    Different(Counterexample),
    /// Equivalent exactly under a condition on the launch the versions do
    /// not state: proved (every query unsat) with the condition added to
    /// both versions' preconditions, and a difference outside it found and
    /// replayed on the concrete interpreter. Never reported as plain
    /// equivalence.
    Conditional {
        /// The condition, in words (`blockDim.x is a power of two`).
        condition: String,
        /// What happens outside the condition.
        outside: Outside,
    },
    /// Neither: why.
    Unknown(String),
    /// A version is not verified race-free (or not analysable): why.
    Refused(String),
}

/// Why a conditional equivalence is not unconditional.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outside {
    /// A launch outside the condition where the versions differ, found
    /// and replayed on the concrete interpreter.
    Differs(Counterexample),
    /// Every launch outside the condition the versions are made with
    /// leaves a result undefined in CUDA (a warp shuffle reading the
    /// register of a lane no thread of the block is): why.
    Undefined(String),
}

#[derive(Clone, Debug)]
pub struct EquivReport {
    pub verdict: Verdict,
    pub millis: u64,
    /// Concrete launches both versions ran on.
    pub launches: usize,
    /// SMT queries of the proof.
    pub queries: u32,
    /// The launch assumptions the versions were compared under, one per
    /// comparison (`block (16,16,1), grid symbolic`, with the facts and the
    /// place of a launch found in the project's code).
    pub compared_under: Vec<String>,
    /// What the comparison assumed or did to match the versions
    /// ("parameters matched by position: a ↔ b", `--assoc`).
    pub notes: Vec<String>,
}

impl EquivReport {
    /// The report as JSON: the result of the server's
    /// `syncscope.compareWith` and the output of `syncscope equiv --format
    /// json` (one shape for both, plain data, so neither front end owns
    /// it): `a`, `b`, `verdict`, `millis`, `launches`, `queries`,
    /// `compared_under`, `notes` (what was assumed or matched, when any),
    /// and `counterexample` or `reason`.
    pub fn to_json(&self, a: &str, b: &str) -> serde_json::Value {
        use serde_json::json;
        let mut v = json!({
            "a": a,
            "b": b,
            "verdict": self.verdict.name(),
            "millis": self.millis,
            "launches": self.launches,
            "queries": self.queries,
            "compared_under": self.compared_under,
        });
        if !self.notes.is_empty() {
            v["notes"] = json!(self.notes);
        }
        match &self.verdict {
            Verdict::Equivalent => {}
            Verdict::Different(c) => v["counterexample"] = counterexample_json(c),
            Verdict::Conditional { condition, outside } => {
                v["condition"] = json!(condition);
                match outside {
                    Outside::Differs(c) => v["counterexample"] = counterexample_json(c),
                    Outside::Undefined(why) => v["reason"] = json!(why),
                }
            }
            Verdict::Unknown(why) | Verdict::Refused(why) => v["reason"] = json!(why),
        }
        v
    }
}

fn counterexample_json(c: &Counterexample) -> serde_json::Value {
    serde_json::json!({
        "block_dim": c.block_dim,
        "grid_dim": c.grid_dim,
        "params": c.params.iter().map(|(n, x)| serde_json::json!({"name": n, "value": x})).collect::<Vec<_>>(),
        "array": c.array,
        "index": c.index,
        "value_a": c.value_a,
        "value_b": c.value_b,
        "expr_a": c.expr_a,
        "expr_b": c.expr_b,
    })
}

impl Verdict {
    /// `equivalent`, `conditional`, `not-equivalent`, `unknown` or
    /// `refused`.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Equivalent => "equivalent",
            Verdict::Conditional { .. } => "conditional",
            Verdict::Different(_) => "not-equivalent",
            Verdict::Unknown(_) => "unknown",
            Verdict::Refused(_) => "refused",
        }
    }
}

/// What `syncscope equiv` may assume beyond the analysis options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EquivOptions {
    /// `--assoc`: `+` and `*` on values are associative and commutative,
    /// `x + 0 == x` and `0 * y == 0` (real arithmetic): an assumption about
    /// floating point the user makes. Reductions in another order become
    /// provable.
    pub assoc: bool,
}

/// Checks that the two versions compute the same thing. `sources` reads
/// the files of their projects (the server's open buffers over the disk).
pub fn check_equivalence(a: &Version, b: &Version, sources: &dyn Sources) -> EquivReport {
    check_equivalence_with(a, b, sources, &EquivOptions::default())
}

/// [`check_equivalence`] with what the comparison may assume.
pub fn check_equivalence_with(
    a: &Version,
    b: &Version,
    sources: &dyn Sources,
    equiv: &EquivOptions,
) -> EquivReport {
    let started = Instant::now();
    let mut report = EquivReport {
        verdict: Verdict::Unknown(String::new()),
        millis: 0,
        launches: 0,
        queries: 0,
        compared_under: Vec::new(),
        notes: Vec::new(),
    };
    if equiv.assoc {
        report.notes.push(
            "assumed (--assoc): + and * on values are associative and commutative, x + 0 == x and 0 * y == 0 (real arithmetic, not floating point)".into(),
        );
    }
    report.verdict = decide(a, b, sources, equiv, &mut report);
    report.millis = started.elapsed().as_millis() as u64;
    report
}

/// A version as `check` reads it: the translation unit's text (headers
/// first), the options with the build's flags and the file's directives,
/// and the launches of the kernel.
struct Prepared {
    text: String,
    options: Options,
    launches: Vec<Launch>,
}

/// One launch a version is checked under: the sizes that apply to the
/// kernel (`Options::launch_for`), and the launch site found in the
/// project's code whose facts (`__requires`-like conditions, template
/// arguments) the lowering assumes, if one applies.
#[derive(Clone, Debug, PartialEq)]
struct Launch {
    block: Option<[u32; 3]>,
    grid: Option<[u32; 3]>,
    site: Option<LaunchOverride>,
    /// The second version's own site, when the two versions share this
    /// launch from different sites ([`paired_launches`]): its template
    /// arguments and origin, with the same facts as `site`. `None`: `site`
    /// is the launch of both.
    site_b: Option<LaunchOverride>,
}

impl Launch {
    /// No launch site: any launch of these sizes.
    fn open(&self) -> bool {
        self.site.is_none()
    }
    /// The same launch, wherever it was found.
    fn same(&self, other: &Launch) -> bool {
        self.open() == other.open()
            && crate::analysis::project::same_launch(&self.as_override(), &other.as_override())
    }
    /// The launch as the project model states one: its sizes, and the
    /// site's facts if it has a site.
    fn as_override(&self) -> LaunchOverride {
        LaunchOverride {
            block_dim: self.block,
            grid_dim: self.grid,
            ..self.site.clone().unwrap_or_default()
        }
    }
    fn describe(&self) -> String {
        let a = crate::analysis::project::describe(&self.as_override());
        match &self.site_b {
            None => a,
            Some(b) => {
                let mut b_site = String::new();
                if !b.template_args.is_empty() {
                    b_site = format!("<{}> ", b.template_args.join(", "));
                }
                if let Some(o) = &b.origin {
                    b_site.push_str(&format!("(launch at {o})"));
                }
                format!("A: {a}; B: the same launch, {}", b_site.trim_end())
            }
        }
    }
    /// The site the version (`second`: B) is lowered under.
    fn site_of(&self, second: bool) -> Option<&LaunchOverride> {
        match (&self.site_b, second) {
            (Some(b), true) => Some(b),
            _ => self.site.as_ref(),
        }
    }
}

fn prepare(v: &Version, sources: &dyn Sources) -> Prepared {
    let (text, options, sites) = match v.path {
        Some(path) => {
            let p =
                crate::analysis::project::in_project(path, v.text, v.options, v.search, sources);
            let sites = p.launches.get(v.kernel).cloned().unwrap_or_default();
            (p.text, p.options, sites)
        }
        None => (
            v.text.to_string(),
            crate::options::with_file_directives(v.text, v.options),
            Vec::new(),
        ),
    };
    let mut launches: Vec<Launch> = Vec::new();
    for site in sites
        .iter()
        .map(Some)
        .chain(sites.is_empty().then_some(None))
    {
        let o = Options {
            launch_sites: site.cloned().into_iter().collect(),
            ..options.clone()
        };
        let (block, grid) = o.launch_for(v.kernel);
        // A size the user fixed wins over the launch site, as in `check`.
        let site = o.launch_site(v.kernel).cloned();
        let l = Launch {
            block,
            grid,
            site,
            site_b: None,
        };
        if !launches.iter().any(|m| m.same(&l)) {
            launches.push(l);
        }
    }
    Prepared {
        text,
        options,
        launches,
    }
}

/// `check`'s verdict on the version's kernel in its project: `Err` (why)
/// unless it is verified race-free, with every header found.
fn race_free(v: &Version, sources: &dyn Sources) -> Result<(), String> {
    // Its status alone is asked: no redundant barriers, no quick-fixes.
    let options = &Options {
        check_redundant: false,
        compute_fixes: false,
        ..v.options.clone()
    };
    let (report, undefined) = match v.path {
        Some(path) => {
            let a = crate::analysis::project::analyze(
                path,
                v.text,
                None,
                options,
                v.search,
                sources,
                &crate::cache::MemoryCache::default(),
                None,
                None,
            );
            (a.report, a.undefined_names)
        }
        None => (crate::analyze_source(v.text, options), Default::default()),
    };
    // A system header outside the built-in model matters only through the
    // names the kernel (and what it calls) takes from it: a kernel that
    // uses none is the program its build compiles. A missing local header
    // (a warning) may also change macros the file tests: refused.
    // (A system header outside the model is an information, a missing
    // local header a warning.)
    if let Some(f) = report
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::Include && f.severity <= Severity::Warning)
    {
        return Err(format!(
            "`{}` line {}: {} (`equiv` compares files as their build compiles them)",
            v.label,
            f.span.start.line + 1,
            f.message
        ));
    }
    if let Some(names) = undefined.get(v.kernel) {
        let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        return Err(format!(
            "`{}` in `{}` uses {} that nothing in its translation unit defines (a header is missing or outside the built-in model; `equiv` compares files as their build compiles them)",
            v.kernel,
            v.label,
            names.join(", ")
        ));
    }
    let Some(k) = report.kernels.iter().find(|k| k.name == v.kernel) else {
        return Err(format!("`{}` has no kernel `{}`", v.label, v.kernel));
    };
    if k.status != KernelStatus::Verified {
        return Err(format!(
            "`{}` in `{}` is {} by `syncscope check`; equivalence needs race-free kernels",
            v.kernel,
            v.label,
            k.status.as_str()
        ));
    }
    Ok(())
}

/// The launches the two versions are compared under: the same launches
/// (found in both projects), or the launches of one version when the other
/// has none of its own (a version checked under any launch is race-free
/// under each of them); sizes fixed on one side only hold for both.
fn joint_launches(a: &[Launch], b: &[Launch]) -> Result<Vec<Launch>, String> {
    let sizes = |x: Option<[u32; 3]>, y: Option<[u32; 3]>| match (x, y) {
        (Some(x), Some(y)) if x != y => Err(format!(
            "the two versions are checked under different launch sizes ({x:?} and {y:?})"
        )),
        (x, y) => Ok(x.or(y)),
    };
    let join = |open: &Launch, l: &Launch| -> Result<Launch, String> {
        Ok(Launch {
            block: sizes(open.block, l.block)?,
            grid: sizes(open.grid, l.grid)?,
            site: l.site.clone(),
            site_b: None,
        })
    };
    match (a, b) {
        ([x], [y]) if x.open() => Ok(vec![join(x, y)?]),
        ([x], ys) if x.open() => ys.iter().map(|y| join(x, y)).collect(),
        (xs, [y]) if y.open() => xs.iter().map(|x| join(y, x)).collect(),
        (xs, ys) if xs.len() == ys.len() && xs.iter().all(|x| ys.iter().any(|y| x.same(y))) => {
            Ok(xs.to_vec())
        }
        (xs, ys) if paired_launches(xs, ys).is_some() => {
            Ok(paired_launches(xs, ys).unwrap_or_default())
        }
        (xs, ys) => {
            let list = |ls: &[Launch]| {
                ls.iter()
                    .map(Launch::describe)
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            Err(format!(
                "the two versions are launched differently in their projects (A: {}; B: {}); equivalence is asked under the same launches: fix the launch with --block-dim/--grid-dim or syncscope.toml, or compare kernels of one project",
                list(xs),
                list(ys)
            ))
        }
    }
}

/// The launches two versions share when their sites differ (each
/// version launched from its own sites, as a host `switch` picks one
/// kernel per `case`): a site of A and a site of B are one launch when
/// their sizes agree (or one leaves a size open) and the facts of one
/// are among the facts of the other, so every launch the narrower site
/// makes is also one the wider site makes (`reduce3<T>` under any block
/// and `reduce4<T, 512>` under `case 512:`'s `blockDim.x == 512`: that
/// launch, each version with its own template arguments). The pair is
/// compared under the narrower facts. `None` unless the pairing is
/// unambiguous: every site of each version has a partner, and a narrower
/// site (both, when their facts are the same) has exactly one, so that
/// no launch of one version is compared against two different sites of
/// the other, which it may never share (two labels of one `switch`
/// whose facts the host reading could not tell apart).
fn paired_launches(xs: &[Launch], ys: &[Launch]) -> Option<Vec<Launch>> {
    if xs.iter().chain(ys).any(Launch::open) {
        return None;
    }
    let size = |p: Option<[u32; 3]>, q: Option<[u32; 3]>| match (p, q) {
        (Some(p), Some(q)) if p != q => None,
        (p, q) => Some(p.or(q)),
    };
    // Facts of the path alone (`which == 1` of a `switch (which)` that
    // picks the kernel) say which site runs, not how it launches: they
    // differ between the versions by construction and are left out.
    let launch_facts = |site: &LaunchOverride| -> Vec<String> {
        let path_only = path_only_facts(&site.requires);
        site.requires
            .iter()
            .filter(|f| !path_only.contains(f))
            .cloned()
            .collect()
    };
    let within = |f: &[String], g: &[String]| f.iter().all(|x| g.contains(x));
    // (index in xs, index in ys, x narrower, y narrower, the joint launch)
    let mut pairs = Vec::new();
    for (i, x) in xs.iter().enumerate() {
        for (j, y) in ys.iter().enumerate() {
            let (Some(sx), Some(sy)) = (&x.site, &y.site) else {
                return None;
            };
            let (Some(block), Some(grid)) = (size(x.block, y.block), size(x.grid, y.grid)) else {
                continue;
            };
            let (fx, fy) = (launch_facts(sx), launch_facts(sy));
            let (x_in_y, y_in_x) = (within(&fx, &fy), within(&fy, &fx));
            if !x_in_y && !y_in_x {
                continue;
            }
            let requires = if x_in_y { fy } else { fx };
            pairs.push((
                i,
                j,
                y_in_x,
                x_in_y,
                Launch {
                    block,
                    grid,
                    site: Some(LaunchOverride {
                        requires: requires.clone(),
                        ..sx.clone()
                    }),
                    site_b: Some(LaunchOverride {
                        requires,
                        ..sy.clone()
                    }),
                },
            ));
        }
    }
    let partners_of_x = |i: usize| pairs.iter().filter(|p| p.0 == i).count();
    let partners_of_y = |j: usize| pairs.iter().filter(|p| p.1 == j).count();
    let covered =
        (0..xs.len()).all(|i| partners_of_x(i) > 0) && (0..ys.len()).all(|j| partners_of_y(j) > 0);
    let unambiguous = pairs.iter().all(|(i, j, x_narrower, y_narrower, _)| {
        (!x_narrower || partners_of_x(*i) == 1) && (!y_narrower || partners_of_y(*j) == 1)
    });
    (covered && unambiguous).then(|| pairs.into_iter().map(|p| p.4).collect())
}

/// The facts of `facts` about the host's path alone: every name they read
/// is a host value (`symbols::HOST_VALUE_PREFIX`, a host variable the
/// kernel is not passed) that no other fact relates to the launch.
fn path_only_facts(facts: &[String]) -> Vec<String> {
    let names = crate::analysis::launch::identifiers;
    let host = |n: &str| n.starts_with(crate::symbols::HOST_VALUE_PREFIX);
    let launch_names: Vec<String> = facts
        .iter()
        .map(|f| names(f))
        .filter(|ns| ns.iter().any(|n| !host(n)))
        .flatten()
        .collect();
    facts
        .iter()
        .filter(|f| {
            let ns = names(f);
            !ns.is_empty() && ns.iter().all(|n| host(n) && !launch_names.contains(n))
        })
        .cloned()
        .collect()
}

fn decide(
    a: &Version,
    b: &Version,
    sources: &dyn Sources,
    equiv: &EquivOptions,
    report: &mut EquivReport,
) -> Verdict {
    let (pa, mut pb) = (prepare(a, sources), prepare(b, sources));
    if pa.options.bitvector || pb.options.bitvector {
        return Verdict::Refused(
            "--bitvector: the equivalence proof and the concrete search compute with mathematical integers, so a proof would not hold under 32-bit wrap-around; `equiv` does not answer under --bitvector (drop it, on the command line or in syncscope.toml, to compare over the integers)".into(),
        );
    }
    let launches = match joint_launches(&pa.launches, &pb.launches) {
        Ok(l) => l,
        Err(why) => return Verdict::Refused(why),
    };
    for v in [a, b] {
        if let Err(why) = race_free(v, sources) {
            return Verdict::Refused(why);
        }
    }
    // Parameters named differently: matched by position when the types
    // agree in order, once for every launch (the second version's text
    // renamed to the first's names; renaming keeps it race-free).
    match crate::analysis::params::match_by_position(&pa.text, a.kernel, &pb.text, b.kernel) {
        crate::analysis::params::Matched::Same => {}
        crate::analysis::params::Matched::Refused(why) => return Verdict::Refused(why),
        crate::analysis::params::Matched::Renamed(text, pairs) => {
            report.notes.push(format!(
                "parameters matched by position: {}",
                pairs
                    .iter()
                    .map(|(x, y)| format!("{x} ↔ {y}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            pb.text = text;
        }
    }
    let mut verdict = Verdict::Equivalent;
    // Each launch is its own question: the answer is the worst of them,
    // and with several launches each one's answer is said too.
    let mut per_launch: Vec<&'static str> = Vec::new();
    let mut answers: Vec<(LaunchAnswer, bool)> = Vec::new();
    let mut undefined_why = None;
    for launch in &launches {
        report.compared_under.push(launch.describe());
        let mut facts = LaunchAnswer::default();
        let v = compare_under(a, b, &pa, &pb, launch, equiv, report, &mut facts);
        per_launch.push(v.name());
        if let (true, Verdict::Unknown(why)) = (facts.undefined, &v) {
            undefined_why.get_or_insert_with(|| why.clone());
        }
        answers.push((facts, v == Verdict::Equivalent));
        let rank = |v: &Verdict| match v {
            Verdict::Equivalent => 0,
            Verdict::Conditional { .. } => 1,
            Verdict::Unknown(_) => 2,
            Verdict::Refused(_) => 3,
            Verdict::Different(_) => 4,
        };
        let tagged = |v: Verdict| -> Verdict {
            let under = if launches.len() > 1 {
                format!(" [under {}]", launch.describe())
            } else {
                String::new()
            };
            match v {
                Verdict::Unknown(w) => Verdict::Unknown(format!("{w}{under}")),
                Verdict::Refused(w) => Verdict::Refused(format!("{w}{under}")),
                v => v,
            }
        };
        if rank(&v) > rank(&verdict) {
            verdict = tagged(v);
        }
        if matches!(verdict, Verdict::Different(_) | Verdict::Refused(_)) {
            break;
        }
    }
    if launches.len() > 1 {
        report
            .notes
            .push(per_launch_note(&per_launch, launches.len()));
    }
    if let (Verdict::Unknown(_), Some(why)) = (&verdict, undefined_why) {
        if let Some(v) = undefined_outside(&answers, &why) {
            return v;
        }
    }
    verdict
}

/// What one launch's comparison found besides its verdict.
#[derive(Clone, Copy, Debug, Default)]
struct LaunchAnswer {
    /// The block size (x) the launch fixes, if one.
    block_x: Option<i64>,
    /// A version's result is undefined in CUDA under it (a shuffle reads a
    /// lane of no thread).
    undefined: bool,
}

/// The answer when every launch compared (the ones both versions are made
/// with) is either proved equivalent or leaves a result undefined in CUDA,
/// and the proved ones are exactly those of the larger blocks: equivalent
/// when `blockDim.x >= M` (M the smallest block proved), never
/// unconditionally (the small launches' results are undefined, so there
/// is no value to compare, and no counterexample either).
fn undefined_outside(answers: &[(LaunchAnswer, bool)], why: &str) -> Option<Verdict> {
    let proved: Vec<i64> = answers
        .iter()
        .filter(|(_, eq)| *eq)
        .map(|(f, _)| f.block_x)
        .collect::<Option<_>>()?;
    let undefined: Vec<i64> = answers
        .iter()
        .filter(|(f, eq)| !*eq && f.undefined)
        .map(|(f, _)| f.block_x)
        .collect::<Option<_>>()?;
    let every = proved.len() + undefined.len() == answers.len();
    let least = *proved.iter().min()?;
    if !every || undefined.iter().any(|x| *x >= least) {
        return None;
    }
    Some(Verdict::Conditional {
        condition: format!("blockDim.x >= {least} (of the launches both versions are made with)"),
        outside: Outside::Undefined(why.to_string()),
    })
}

/// The answers under each of `total` launches (`compared under`, in that
/// order), the first `answers.len()` of them compared.
fn per_launch_note(answers: &[&str], total: usize) -> String {
    if answers.len() == total && answers.iter().all(|a| *a == "equivalent") {
        return format!(
            "equivalent under each of the {total} launches both versions are made with (`compared under`), each compared on its own"
        );
    }
    let mut note = format!(
        "one answer per launch both versions are made with, in the order of `compared under`: {}",
        answers.join(", ")
    );
    if answers.len() < total {
        note.push_str(&format!(
            "; the other {} not compared after that answer",
            total - answers.len()
        ));
    }
    note
}

/// The comparison under one launch.
#[allow(clippy::too_many_arguments)]
fn compare_under(
    a: &Version,
    b: &Version,
    pa: &Prepared,
    pb: &Prepared,
    launch: &Launch,
    equiv: &EquivOptions,
    report: &mut EquivReport,
    facts: &mut LaunchAnswer,
) -> Verdict {
    let mut kernels = Vec::new();
    for (second, (v, p)) in [(a, pa), (b, pb)].into_iter().enumerate() {
        // The launch's facts hold for both versions (a version without a
        // launch of its own is race-free under any); each keeps its own
        // template arguments when they share it from different sites.
        let o = Options {
            launch_sites: launch
                .site_of(second == 1)
                .into_iter()
                .map(|s| LaunchOverride {
                    kernel_glob: v.kernel.to_string(),
                    ..s.clone()
                })
                .collect(),
            ..p.options.clone()
        };
        // With lockstep warps (`--warp-sync`) a kernel may be race-free
        // only because a warp runs in lockstep; the proof and the
        // interpreter run threads independently between barriers, which
        // is its result only if it is race-free without lockstep too.
        if o.warp_sync {
            let its = Options {
                warp_sync: false,
                ..o.clone()
            };
            match crate::analysis::kernel_status(&p.text, &its, v.kernel) {
                Some(KernelStatus::Verified) => {}
                status => {
                    return Verdict::Refused(format!(
                        "`{}` in `{}` is race-free only with lockstep warps (--warp-sync; without them: {}); equivalence compares results under independent thread scheduling, which such a kernel's result depends on",
                        v.kernel,
                        v.label,
                        status.map_or("no kernel", |s| s.as_str())
                    ))
                }
            }
        }
        match crate::analysis::lower_with_values(&p.text, &o, v.kernel) {
            Some(k) => kernels.push(k),
            None => return Verdict::Refused(format!("`{}` has no kernel `{}`", v.label, v.kernel)),
        }
    }
    // The proof and the search take the launch's sizes from the options.
    let options = &Options {
        block_dim: launch.block,
        grid_dim: launch.grid,
        ..pa.options.clone()
    };
    let (ka, kb) = (&kernels[0], &kernels[1]);
    facts.block_x = symbolic::fixed_sizes(ka, kb, options)
        .get(&*crate::verify::smt::block_dim_var(0).name)
        .copied();
    // Inputs are matched by name: the same global arrays and scalar
    // parameters, or the comparison would feed the versions different data.
    let globals = |k: &Kernel| -> std::collections::BTreeSet<String> {
        k.arrays
            .iter()
            .filter(|a| a.space == crate::model::MemorySpace::Global)
            .map(|a| a.name.clone())
            .collect()
    };
    if let Some(a) = [ka, kb]
        .iter()
        .flat_map(|k| &k.arrays)
        .find(|a| a.byte_addressed && a.space == crate::model::MemorySpace::Global)
    {
        return Verdict::Unknown(format!(
            "`{}` is viewed as another element type (byte offsets): not compared",
            a.name
        ));
    }
    let scalars = |k: &Kernel| params(&[k]).into_keys().collect::<Vec<_>>();
    if globals(ka) != globals(kb) || scalars(ka) != scalars(kb) {
        return Verdict::Unknown(format!(
            "the versions' inputs are matched by name, and these differ: global arrays {:?} and {:?}, parameters {:?} and {:?}",
            globals(ka),
            globals(kb),
            scalars(ka),
            scalars(kb)
        ));
    }
    // Cheap first: a concrete difference on a small launch.
    let concrete = match search(ka, kb, options, report) {
        Ok(Some(cex)) => return Verdict::Different(cex),
        Ok(None) => None,
        // Not the same barriers in every thread: no deterministic result
        // to compare (`check` should have reported it).
        Err(concrete::RunError::Divergence(why)) => return Verdict::Refused(why),
        Err(concrete::RunError::Unsupported(why)) => Some(why),
    };
    // The proof stands on its own (the concrete search only looks for
    // counterexamples); without it the answer is `unknown`.
    let proved = match symbolic::prove(ka, kb, options, equiv.assoc, &mut report.queries) {
        // Equivalence is symmetric, the solver's search is not: a proof
        // that did not go through without a counterexample (a query the
        // solver could not decide, a shape not recognised in this order) is
        // tried once more with the versions swapped, so that the verdict
        // does not depend on which version is named first (the tiled
        // multiply against the naive one under `--assoc` is decided in one
        // order and runs into the safety net in the other).
        Err(f) if f.model.is_none() => {
            match symbolic::prove(kb, ka, options, equiv.assoc, &mut report.queries) {
                Ok(()) => Ok(()),
                Err(_) => Err(f),
            }
        }
        other => other,
    };
    let failure = match proved {
        // Not vacuously: some launch satisfies both versions' preconditions
        // and the launch compared under.
        Ok(()) => {
            return match symbolic::some_launch(ka, kb, options, &mut report.queries) {
                Ok(true) => Verdict::Equivalent,
                Ok(false) => Verdict::Refused(
                    "no launch satisfies both versions' preconditions and the launch they are compared under: equivalence would hold vacuously".into(),
                ),
                Err(f) => Verdict::Unknown(format!(
                    "the proof's queries are unsat, but {} (a proof under no launch would be vacuous)",
                    f.reason
                )),
            }
        }
        Err(f) => f,
    };
    facts.undefined = failure.undefined;
    let mut why = failure.reason;
    // The proof needs a condition on the launch the versions do not state:
    // proved under it and refuted outside it, a conditional answer.
    if let Some(needs) = &failure.needs {
        match conditional(
            ka,
            kb,
            needs,
            failure.model.as_ref(),
            options,
            equiv,
            report,
        ) {
            Ok(v) => return v,
            Err(e) => why.push_str(&format!("; {e}")),
        }
    }
    // A satisfiable query: replay it with the solver's launch and parameters.
    if let Some(model) = &failure.model {
        match replay_model(ka, kb, model) {
            Ok(Some(cex)) => return Verdict::Different(cex),
            Ok(None) => {
                why.push_str(", which its launch does not confirm on the concrete interpreter")
            }
            Err(e) => why.push_str(&format!(", which could not be replayed ({e})")),
        }
    }
    match concrete {
        None => Verdict::Unknown(why),
        Some(c) => Verdict::Unknown(format!("{why}; no concrete run either ({c})")),
    }
}

/// Block sizes (x) outside a power of two tried for a difference outside
/// the condition, after the solver's own.
const ODD_BLOCKS: [i64; 8] = [3, 5, 6, 7, 12, 24, 48, 96];

/// The comparison of `a` and `b` under the condition `needs` the proof
/// asked for (added to both versions' preconditions): `Conditional` when
/// the proof goes through under it (and some launch satisfies it) and a
/// launch outside it shows a difference on the concrete interpreter;
/// otherwise why not (the caller's answer stays `unknown`).
fn conditional(
    a: &Kernel,
    b: &Kernel,
    needs: &crate::model::Expr,
    model: Option<&BTreeMap<String, i64>>,
    options: &Options,
    equiv: &EquivOptions,
    report: &mut EquivReport,
) -> Result<Verdict, String> {
    let under = |k: &Kernel| {
        let mut k = k.clone();
        k.assumptions.push(needs.clone());
        k
    };
    let (ca, cb) = (under(a), under(b));
    let proved =
        symbolic::prove(&ca, &cb, options, equiv.assoc, &mut report.queries).or_else(|f| {
            match f.model {
                None => symbolic::prove(&cb, &ca, options, equiv.assoc, &mut report.queries),
                Some(_) => Err(f),
            }
        });
    if let Err(f) = proved {
        return Err(format!(
            "under `{needs}` the proof does not go through either ({})",
            f.reason
        ));
    }
    if !matches!(
        symbolic::some_launch(&ca, &cb, options, &mut report.queries),
        Ok(true)
    ) {
        return Err(format!(
            "no launch satisfies `{needs}` and both versions' preconditions"
        ));
    }
    // Outside the condition: the solver's block size, then a few small
    // ones, each a concrete search under that block.
    let outside = |x: i64| !(1..=1024).contains(&x) || x & (x - 1) != 0;
    let mut sizes: Vec<i64> = model
        .and_then(|m| m.get("blockDim.x").copied())
        .filter(|x| outside(*x) && *x <= 1024)
        .into_iter()
        .collect();
    sizes.extend(ODD_BLOCKS);
    for x in sizes {
        if options.block_dim.is_some() {
            break;
        }
        let o = Options {
            block_dim: Some([x as u32, 1, 1]),
            ..options.clone()
        };
        if let Ok(Some(cex)) = search(a, b, &o, report) {
            if outside(cex.block_dim[0]) {
                return Ok(Verdict::Conditional {
                    condition: "blockDim.x is a power of two (up to 1024)".into(),
                    outside: Outside::Differs(cex),
                });
            }
        }
    }
    Err(format!(
        "proved under `{needs}`, but no launch outside it tried shows a difference"
    ))
}

/// The value of a floating-point literal the model holds as an unknown
/// (`2.0f#0`), as the bits of the double it denotes in its type: a `float`
/// literal (suffix `f`) is first rounded to float, so `0.1f` is
/// 0.100000001490116…, not the double 0.1 (and `x * 0.1` differs from
/// `x * 0.1f`). One constant for every spelling of the same number, the
/// same in both versions; a number both types hold exactly (`0.5`, `0.0`)
/// is one constant in both.
pub(crate) fn float_literal(v: &crate::model::Var) -> Option<i64> {
    let base = v.name.split('#').next()?;
    let single = base.ends_with(['f', 'F']) && !base.starts_with("0x");
    let digits = base.trim_end_matches(['f', 'F', 'l', 'L']);
    if !digits.contains(['.', 'e', 'E']) {
        return None;
    }
    let x = digits.parse::<f64>().ok()?;
    let x = if single { x as f32 as f64 } else { x };
    Some(x.to_bits() as i64)
}

/// Scalar parameters the kernels read, with their bounds.
fn params(kernels: &[&Kernel]) -> BTreeMap<String, (i64, i64)> {
    let mut out = BTreeMap::new();
    for k in kernels {
        let exprs = k
            .accesses()
            .into_iter()
            .flat_map(|a| [Some(&a.guard), Some(&a.index), a.value.as_ref()])
            .flatten()
            .chain(&k.assumptions);
        for e in exprs {
            e.for_each_var(&mut |v| {
                if let VarKind::Param { lo, hi } = v.kind {
                    out.insert(v.name.to_string(), (lo, hi));
                }
            })
        }
    }
    out
}

const BLOCKS: [[i64; 3]; 10] = [
    [16, 16, 1],
    [8, 8, 1],
    [4, 4, 1],
    [32, 8, 1],
    [16, 8, 1],
    [32, 1, 1],
    [64, 1, 1],
    [128, 1, 1],
    [256, 1, 1],
    [32, 32, 1],
];
const GRIDS: [[i64; 3]; 4] = [[1, 1, 1], [2, 3, 1], [3, 2, 1], [3, 1, 1]];
const PARAM_VALUES: [i64; 6] = [37, 20, 16, 45, 9, 32];
/// The order in which the search takes the rotations of `PARAM_VALUES`.
const PARAM_ORDER: [usize; 6] = [0, 2, 4, 1, 3, 5];
const MAX_THREADS: i64 = 1 << 15;

/// Launches in a row that saw no new outcome of any guard of either
/// version (`concrete::Coverage`) before the search stops.
const STALE_LAUNCHES: usize = 4;

/// The concrete differential search: the first launch on which the two
/// versions leave different global memory. It stops once a few launches
/// in a row ran no guard of either version (access, barrier, loop
/// condition, `break`) to an outcome earlier launches had not seen.
fn search(
    a: &Kernel,
    b: &Kernel,
    options: &Options,
    report: &mut EquivReport,
) -> Result<Option<Counterexample>, concrete::RunError> {
    let params = params(&[a, b]);
    let used = |d: usize, block: bool| {
        let f = |k: &Kernel| {
            if block {
                k.block_dims_used[d]
            } else {
                k.grid_dims_used[d]
            }
        };
        (f(a), f(b))
    };
    let blocks: Vec<[i64; 3]> = match options.block_dim {
        Some(d) => vec![d.map(|x| x as i64)],
        None => {
            // A block the launch's facts fix (`blockDim.x == 512` under a
            // `case 512:` label) is tried first: it may be none of ours.
            let fixed = symbolic::fixed_sizes(a, b, options);
            let size = |d: u8| {
                let name = crate::verify::smt::block_dim_var(d).name.to_string();
                fixed.get(&name).copied()
            };
            let mut blocks = Vec::new();
            if let Some(x) = size(0) {
                blocks.push([x, size(1).unwrap_or(1), size(2).unwrap_or(1)]);
            }
            for b in BLOCKS {
                if !blocks.contains(&b) {
                    blocks.push(b);
                }
            }
            blocks
        }
    };
    let grids: Vec<[i64; 3]> = match options.grid_dim {
        Some(d) => vec![d.map(|x| x as i64)],
        None => GRIDS.to_vec(),
    };
    let (pa, pb) = (concrete::Program::new(a), concrete::Program::new(b));
    let (mut ca, mut cb) = (pa.coverage(), pb.coverage());
    let unsupported = concrete::RunError::Unsupported;
    let mut last_error = None;
    let mut stale = 0;
    for block in &blocks {
        for grid in &grids {
            // A dimension a version never mentions is launched as 1.
            let fits = (0..3).all(|d| {
                let (ba, bb) = used(d, true);
                let (ga, gb) = used(d, false);
                (block[d] == 1 || (ba && bb)) && (grid[d] == 1 || (ga && gb))
            });
            if !fits || block.iter().chain(grid).product::<i64>() > MAX_THREADS {
                continue;
            }
            // Up to three choices of the parameters that both versions'
            // preconditions allow (`n % 16 == 0` takes 16 and 32).
            let mut rounds = 0;
            let mut tried = Vec::new();
            for round in PARAM_ORDER {
                if rounds == 3 {
                    break;
                }
                let values: BTreeMap<String, i64> = params
                    .iter()
                    .enumerate()
                    .map(|(i, (name, (lo, hi)))| {
                        let v = PARAM_VALUES[(round + i * 3) % PARAM_VALUES.len()];
                        (name.clone(), v.clamp(*lo, *hi))
                    })
                    .collect();
                if tried.contains(&values) {
                    continue;
                }
                tried.push(values.clone());
                let launch = concrete::Launch {
                    shape: LaunchShape {
                        block: *block,
                        grid: *grid,
                    },
                    params: values,
                };
                if !pa.assumptions_hold(&launch).map_err(unsupported)?
                    || !pb.assumptions_hold(&launch).map_err(unsupported)?
                {
                    continue;
                }
                rounds += 1;
                let ((wa, new_a), (wb, new_b)) =
                    match (pa.run(&launch, &mut ca), pb.run(&launch, &mut cb)) {
                        (Ok(ra), Ok(rb)) => (ra, rb),
                        (Err(e @ concrete::RunError::Divergence(_)), _)
                        | (_, Err(e @ concrete::RunError::Divergence(_))) => return Err(e),
                        (Err(e), _) | (_, Err(e)) => {
                            last_error = Some(e);
                            continue;
                        }
                    };
                report.launches += 1;
                if let Some(cex) = difference(a, b, &launch, &wa, &wb) {
                    return Ok(Some(cex));
                }
                stale = if new_a || new_b { 0 } else { stale + 1 };
                if stale >= STALE_LAUNCHES {
                    return Ok(None);
                }
            }
        }
    }
    match (report.launches, last_error) {
        (0, Some(e)) => Err(e),
        (0, None) => Err(unsupported(
            "no small launch satisfies both versions' preconditions".into(),
        )),
        _ => Ok(None),
    }
}

/// Runs both versions with the launch sizes and parameters of a solver's
/// model: the counterexample if they differ there.
fn replay_model(
    a: &Kernel,
    b: &Kernel,
    model: &BTreeMap<String, i64>,
) -> Result<Option<Counterexample>, String> {
    let size = |name: String| model.get(&name).copied().unwrap_or(1);
    let dims =
        |prefix: &str| [0, 1, 2].map(|d| size(format!("{prefix}.{}", crate::model::DIMS[d])));
    let launch = concrete::Launch {
        shape: LaunchShape {
            block: dims("blockDim"),
            grid: dims("gridDim"),
        },
        params: params(&[a, b])
            .into_keys()
            .map(|p| {
                let v = model.get(&p).copied().unwrap_or(0);
                (p, v)
            })
            .collect(),
    };
    let threads = launch
        .shape
        .block
        .iter()
        .chain(&launch.shape.grid)
        .try_fold(1i64, |n, d| (*d >= 1).then(|| n.saturating_mul(*d)));
    match threads {
        Some(n) if n <= 4 * MAX_THREADS => {}
        _ => {
            return Err(format!(
                "launch {:?} x {:?} too large to run",
                launch.shape.grid, launch.shape.block
            ))
        }
    }
    let (pa, pb) = (concrete::Program::new(a), concrete::Program::new(b));
    if !pa.assumptions_hold(&launch)? || !pb.assumptions_hold(&launch)? {
        return Ok(None);
    }
    let run = |p: &concrete::Program| {
        p.run(&launch, &mut p.coverage())
            .map(|(w, _)| w)
            .map_err(|e| e.to_string())
    };
    let (wa, wb) = (run(&pa)?, run(&pb)?);
    Ok(difference(a, b, &launch, &wa, &wb))
}

fn difference(
    a: &Kernel,
    b: &Kernel,
    launch: &concrete::Launch,
    wa: &concrete::Written,
    wb: &concrete::Written,
) -> Option<Counterexample> {
    let keys = wa
        .keys()
        .chain(wb.keys())
        .collect::<std::collections::BTreeSet<_>>();
    for key in keys {
        let (va, vb) = (wa.get(key).copied(), wb.get(key).copied());
        let init = concrete::input(&key.0, key.1);
        if va.unwrap_or(init) == vb.unwrap_or(init) {
            continue;
        }
        let expr = |k: &Kernel, written: Option<i64>| match written {
            None => "not written (the input value stays)".to_string(),
            Some(_) => symbolic::write_text(k, &key.0),
        };
        return Some(Counterexample {
            block_dim: launch.shape.block,
            grid_dim: launch.shape.grid,
            params: launch.params.clone().into_iter().collect(),
            array: key.0.clone(),
            index: key.1,
            value_a: va,
            value_b: vb,
            expr_a: expr(a, va),
            expr_b: expr(b, vb),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Var, VarKind};
    use crate::project::Disk;

    static DEFAULT: std::sync::LazyLock<Options> = std::sync::LazyLock::new(Options::default);
    static NO_SEARCH: SearchPaths = SearchPaths {
        include_dirs: Vec::new(),
        compile_commands: None,
        context: Vec::new(),
    };

    /// Kernel `k` of a text that is no file, under the default options.
    fn text_version(t: &'static str) -> Version<'static> {
        Version {
            label: "k.cu",
            path: None,
            text: t,
            kernel: "k",
            options: &DEFAULT,
            search: &NO_SEARCH,
        }
    }

    fn unknown(name: &str) -> Var {
        Var::new(
            name,
            VarKind::Unknown {
                scope: crate::model::Scope::Thread,
                lo: i64::MIN,
                hi: i64::MAX,
            },
        )
    }

    /// Sites of a host `switch`, one kernel per `case`: paired by their
    /// facts, each version keeping its own template arguments; the
    /// selector's facts (a host value alone) left out; refused when a
    /// site has no partner or a narrower site has two.
    #[test]
    fn sites_of_a_switch_are_paired_by_their_facts() {
        let which = |k: i64| format!("{}i32_which == {k}", crate::symbols::HOST_VALUE_PREFIX);
        let site = |targs: &[&str], facts: &[&str], selector: i64, at: &str| Launch {
            block: None,
            grid: None,
            site: Some(LaunchOverride {
                kernel_glob: "k".into(),
                template_args: targs.iter().map(|t| t.to_string()).collect(),
                requires: facts
                    .iter()
                    .map(|f| f.to_string())
                    .chain([which(selector)])
                    .collect(),
                origin: Some(at.to_string()),
                ..Default::default()
            }),
            site_b: None,
        };
        let any = site(&["T"], &["blockDim.y == 1"], 3, "h.cu:10");
        let sized = |n: &str, sel: i64, at: &str| {
            let fact = format!("blockDim.x == {n}");
            site(&["T", n], &["blockDim.y == 1", fact.as_str()], sel, at)
        };
        let (a512, a256) = (sized("512", 4, "h.cu:20"), sized("256", 4, "h.cu:22"));
        let (b512, b256) = (sized("512", 5, "h.cu:30"), sized("256", 5, "h.cu:32"));
        // One general site against two narrower ones: two launches, each
        // under the narrower facts, each version its own arguments.
        let got =
            joint_launches(std::slice::from_ref(&any), &[a512.clone(), a256.clone()]).unwrap();
        assert_eq!(got.len(), 2);
        let first = &got[0];
        let facts = &first.site.as_ref().unwrap().requires;
        assert_eq!(facts, &vec!["blockDim.y == 1", "blockDim.x == 512"]);
        assert_eq!(first.site.as_ref().unwrap().template_args, vec!["T"]);
        let b_site = first.site_b.as_ref().unwrap();
        assert_eq!(b_site.template_args, vec!["T", "512"]);
        assert_eq!(&b_site.requires, facts);
        assert!(first.describe().contains("(launch at h.cu:20)"));
        // Case by case, in either order.
        let got = joint_launches(&[b256.clone(), b512.clone()], &[a512.clone(), a256.clone()]);
        let got = got.unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[0].site_b.as_ref().unwrap().template_args,
            vec!["T", "256"]
        );
        // A site without a partner, and a narrower site with two.
        let err =
            joint_launches(&[a512.clone(), a256.clone()], std::slice::from_ref(&b512)).unwrap_err();
        assert!(err.contains("launched differently"), "{err}");
        let unsized_twice = [
            site(&["T", "512"], &["blockDim.y == 1"], 4, "h.cu:40"),
            site(&["T", "256"], &["blockDim.y == 1"], 4, "h.cu:41"),
        ];
        let err = joint_launches(std::slice::from_ref(&a512), &unsized_twice).unwrap_err();
        assert!(err.contains("launched differently"), "{err}");
        // A host value tied to the launch is a launch fact, kept.
        let tied = format!(
            "blockDim.x == {}i32_which",
            crate::symbols::HOST_VALUE_PREFIX
        );
        assert_eq!(
            path_only_facts(&[which(1), tied.clone()]),
            Vec::<String>::new()
        );
        assert_eq!(
            path_only_facts(&[which(1), "n == 2".into()]),
            vec![which(1)]
        );
    }

    /// The launches two versions are compared under, one case a row:
    /// each version's launches, and the joint ones or a refusal's words.
    #[test]
    fn versions_are_compared_under_the_launches_they_share() {
        let open = |b: Option<[u32; 3]>| Launch {
            block: b,
            grid: None,
            site: None,
            site_b: None,
        };
        let site = |b: [u32; 3], fact: &str, at: &str| Launch {
            block: Some(b),
            grid: None,
            site: Some(LaunchOverride {
                kernel_glob: "k".into(),
                block_dim: Some(b),
                requires: vec![fact.to_string()],
                origin: Some(at.to_string()),
                ..Default::default()
            }),
            site_b: None,
        };
        let b16 = Some([16, 16, 1]);
        let s1 = site([16, 16, 1], "n == 64", "a.cu:3");
        let s1_elsewhere = site([16, 16, 1], "n == 64", "b.cu:9");
        let s2 = site([32, 1, 1], "n == 32", "a.cu:4");
        type Case = (Vec<Launch>, Vec<Launch>, Result<Vec<Launch>, &'static str>);
        let cases: Vec<Case> = vec![
            (vec![open(None)], vec![open(None)], Ok(vec![open(None)])),
            // Sizes fixed on one side hold for both.
            (vec![open(b16)], vec![open(None)], Ok(vec![open(b16)])),
            (
                vec![open(b16)],
                vec![open(Some([32, 1, 1]))],
                Err("different launch sizes"),
            ),
            // A version launched nowhere takes the other's launches.
            (
                vec![open(None)],
                vec![s1.clone(), s2.clone()],
                Ok(vec![s1.clone(), s2.clone()]),
            ),
            (vec![s1.clone()], vec![open(b16)], Ok(vec![s1.clone()])),
            (
                vec![s2.clone()],
                vec![open(b16)],
                Err("different launch sizes"),
            ),
            // The same launch found in two projects.
            (
                vec![s1.clone()],
                vec![s1_elsewhere.clone()],
                Ok(vec![s1.clone()]),
            ),
            (
                vec![s1.clone()],
                vec![s2.clone()],
                Err("launched differently"),
            ),
            (
                vec![s1.clone(), s2.clone()],
                vec![s1.clone()],
                Err("launched differently"),
            ),
        ];
        for (a, b, expected) in cases {
            let got = joint_launches(&a, &b);
            match (&got, &expected) {
                (Ok(g), Ok(e)) => assert_eq!(g, e, "{a:?} / {b:?}"),
                (Err(g), Err(e)) => assert!(g.contains(e), "{a:?} / {b:?}: {g}"),
                _ => panic!("{a:?} / {b:?}: got {got:?}, expected {expected:?}"),
            }
        }
    }

    #[test]
    fn float_literals_are_their_value() {
        let two = float_literal(&unknown("2.0f#0"));
        assert_eq!(two, Some(2.0f64.to_bits() as i64));
        assert_eq!(float_literal(&unknown("2.f#3")), two);
        assert_eq!(
            float_literal(&unknown("1e3#0")),
            Some(1000.0f64.to_bits() as i64)
        );
        // The type is part of the constant: 0.1 and 0.1f are two numbers.
        assert_eq!(
            float_literal(&unknown("0.1#0")),
            Some(0.1f64.to_bits() as i64)
        );
        assert_ne!(
            float_literal(&unknown("0.1#0")),
            float_literal(&unknown("0.1f#1"))
        );
        assert_eq!(float_literal(&unknown("2.0#0")), two);
        assert_eq!(
            float_literal(&unknown("0.1f#1")),
            Some((0.1f32 as f64).to_bits() as i64)
        );
        assert_eq!(float_literal(&unknown("in[i]#0")), None);
        assert_eq!(float_literal(&unknown("sum@exit#0")), None);
    }

    #[test]
    fn the_interpreter_runs_a_block_through_its_barrier() {
        // Each block reverses its slice through shared memory.
        let text = "__global__ void rev(int *out, const int *in) {\n\
            __requires(blockDim.x == 8 && blockDim.y == 1 && blockDim.z == 1);\n\
            __shared__ int s[8];\n\
            int g = blockIdx.x * 8 + threadIdx.x;\n\
            s[threadIdx.x] = in[g];\n\
            __syncthreads();\n\
            out[g] = s[7 - threadIdx.x];\n}\n";
        let k = crate::analysis::lower_with_values(text, &Options::default(), "rev").unwrap();
        let launch = concrete::Launch {
            shape: LaunchShape {
                block: [8, 1, 1],
                grid: [2, 1, 1],
            },
            params: BTreeMap::new(),
        };
        let program = concrete::Program::new(&k);
        assert!(program.assumptions_hold(&launch).unwrap());
        let (written, _) = program.run(&launch, &mut program.coverage()).unwrap();
        assert_eq!(written.len(), 16);
        for g in 0..16i64 {
            let from = (g / 8) * 8 + 7 - g % 8;
            assert_eq!(
                written[&("out".to_string(), g)],
                concrete::input("in", from),
                "{g}"
            );
        }
    }

    #[test]
    fn a_fold_in_another_order_is_not_proved() {
        // The same dot product summed forwards and backwards: equal for
        // integers (the concrete search finds no difference), not for
        // floating point (needs associativity): never "equivalent".
        let fwd = "__global__ void k(float *o, const float *a, int n) {\n\
            int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
            float s = 0.0f;\n\
            for (int k = 0; k < n; ++k) { s += a[i * n + k]; }\n\
            o[i] = s;\n}\n";
        let bwd = fwd.replace(
            "for (int k = 0; k < n; ++k) { s += a[i * n + k]; }",
            "for (int k = n - 1; k >= 0; --k) { s += a[i * n + k]; }",
        );
        let same = fwd.replace("s += a[i * n + k];", "s = a[n * i + k] + s;");
        let v = text_version;
        let bwd: &'static str = Box::leak(bwd.into_boxed_str());
        let same: &'static str = Box::leak(same.into_boxed_str());
        let r = check_equivalence(&v(fwd), &v(bwd), &Disk);
        assert!(matches!(r.verdict, Verdict::Unknown(_)), "{:?}", r.verdict);
        // The same order, spelled differently: proved.
        let r = check_equivalence(&v(fwd), &v(same), &Disk);
        assert_eq!(r.verdict, Verdict::Equivalent);
        assert!(r.queries > 0);
    }

    #[test]
    fn a_reordered_sum_is_not_proved() {
        // (a + b) + c against a + (b + c): equal for integers, not as
        // uninterpreted operations (floating point is not associative).
        let left = "__global__ void k(float *o, const float *a) {\n\
            int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
            o[i] = (a[3 * i] + a[3 * i + 1]) + a[3 * i + 2];\n}\n";
        let right = left.replace(
            "(a[3 * i] + a[3 * i + 1]) + a[3 * i + 2]",
            "a[3 * i] + (a[3 * i + 1] + a[3 * i + 2])",
        );
        let swapped = left.replace(
            "(a[3 * i] + a[3 * i + 1]) + a[3 * i + 2]",
            "a[3 * i + 2] + (a[3 * i + 1] + a[3 * i])",
        );
        let v = text_version;
        let right: &'static str = Box::leak(right.into_boxed_str());
        let swapped: &'static str = Box::leak(swapped.into_boxed_str());
        let r = check_equivalence(&v(left), &v(right), &Disk);
        assert!(!matches!(r.verdict, Verdict::Equivalent), "{:?}", r.verdict);
        // Commutativity alone is a normalisation: proved.
        let r = check_equivalence(&v(left), &v(swapped), &Disk);
        assert_eq!(r.verdict, Verdict::Equivalent);
        // With `--assoc` the user assumes real arithmetic: proved, and the
        // report says what was assumed.
        let assoc = EquivOptions { assoc: true };
        let r = check_equivalence_with(&v(left), &v(right), &Disk, &assoc);
        assert_eq!(r.verdict, Verdict::Equivalent);
        assert!(
            r.notes.iter().any(|n| n.contains("--assoc")),
            "{:?}",
            r.notes
        );
    }

    /// Thread 0 of each 8-thread block sums the block's elements in order.
    const SERIAL_SUM_OF_8: &str = "__global__ void k(int *o, const int *a) {\n\
        __requires(blockDim.x == 8 && blockDim.y == 1 && blockDim.z == 1);\n\
        if (threadIdx.x == 0) {\n\
        int s = 0;\n\
        for (int i = 0; i < 8; ++i) { s += a[blockIdx.x * 8 + i]; }\n\
        o[blockIdx.x] = s; }\n}\n";

    #[test]
    fn a_fold_and_a_tree_are_sums_under_assoc() {
        // A serial sum of a block against a halving tree: a sum over the
        // block either way, proved only under `--assoc`; a tree that skips
        // its last step loses half of the elements, never proved.
        let serial = SERIAL_SUM_OF_8;
        let tree = "__global__ void k(int *o, const int *a) {\n\
            __requires(blockDim.x == 8 && blockDim.y == 1 && blockDim.z == 1);\n\
            __shared__ int sh[8];\n\
            unsigned int t = threadIdx.x;\n\
            sh[t] = a[blockIdx.x * 8 + t];\n\
            __syncthreads();\n\
            for (unsigned int s = 4; s > 0; s >>= 1) {\n\
            if (t < s) { sh[t] += sh[t + s]; }\n\
            __syncthreads(); }\n\
            if (t == 0) { o[blockIdx.x] = sh[0]; }\n}\n";
        let short = tree.replace("s > 0;", "s > 1;");
        let short: &'static str = Box::leak(short.into_boxed_str());
        let v = text_version;
        let assoc = EquivOptions { assoc: true };
        let r = check_equivalence(&v(serial), &v(tree), &Disk);
        assert!(matches!(r.verdict, Verdict::Unknown(_)), "{:?}", r.verdict);
        let r = check_equivalence_with(&v(serial), &v(tree), &Disk, &assoc);
        assert_eq!(r.verdict, Verdict::Equivalent);
        let r = check_equivalence_with(&v(serial), &v(short), &Disk, &assoc);
        assert!(!matches!(r.verdict, Verdict::Equivalent), "{:?}", r.verdict);
    }

    /// A partial sum kept in a register and stored to its thread's cell at
    /// every step is the in-place tree once the register is shown to be
    /// the cell; a store on fewer steps than the register changes is not
    /// (here the result happens to be the same, so only the check stands
    /// between it and a proof: unknown, the failed check named).
    #[test]
    fn a_register_stored_at_every_step_is_its_cell() {
        let serial = SERIAL_SUM_OF_8;
        let register = "__global__ void k(int *o, const int *a) {\n\
            __requires(blockDim.x == 8 && blockDim.y == 1 && blockDim.z == 1);\n\
            __shared__ int sh[8];\n\
            unsigned int t = threadIdx.x;\n\
            int acc = a[blockIdx.x * 8 + t];\n\
            sh[t] = acc;\n\
            __syncthreads();\n\
            for (unsigned int s = 4; s > 0; s >>= 1) {\n\
            if (t < s) { sh[t] = acc = acc + sh[t + s]; }\n\
            __syncthreads(); }\n\
            if (t == 0) { o[blockIdx.x] = acc; }\n}\n";
        let skipped = "__global__ void k(int *o, const int *a) {\n\
            __requires(blockDim.x == 8 && blockDim.y == 1 && blockDim.z == 1);\n\
            __shared__ int sh[8];\n\
            unsigned int t = threadIdx.x;\n\
            int acc = a[blockIdx.x * 8 + t];\n\
            sh[t] = acc;\n\
            __syncthreads();\n\
            for (unsigned int s = 4; s > 0; s >>= 1) {\n\
            if (t < s) { acc = acc + sh[t + s]; if (s > 1) { sh[t] = acc; } }\n\
            __syncthreads(); }\n\
            if (t == 0) { o[blockIdx.x] = acc; }\n}\n";
        let v = text_version;
        let assoc = EquivOptions { assoc: true };
        let r = check_equivalence_with(&v(serial), &v(register), &Disk, &assoc);
        assert_eq!(r.verdict, Verdict::Equivalent);
        let r = check_equivalence_with(&v(serial), &v(skipped), &Disk, &assoc);
        match &r.verdict {
            Verdict::Unknown(why) => assert!(why.contains("is not read as the cell"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    /// The shape of a warp's last steps by shuffles, on a fixed block of
    /// `n` threads: the serial sum of 8 against a tree whose first step is
    /// in shared memory and whose last by `__shfl_down_sync` over 4 lanes.
    fn shuffle_tail(n: i64, lane: &str) -> String {
        format!(
            "__global__ void k(int *o, const int *a) {{\n\
            __requires(blockDim.x == {n} && blockDim.y == 1 && blockDim.z == 1);\n\
            __shared__ int sh[8];\n\
            unsigned int t = threadIdx.x;\n\
            int acc = t < 8 ? a[blockIdx.x * 8 + t] : 0;\n\
            if (t < 8) {{ sh[t] = acc; }}\n\
            __syncthreads();\n\
            if (t < 4) {{\n\
            acc += sh[t + 4];\n\
            for (int d = 2; d > 0; d /= 2) {{ acc += __shfl_down_sync(0xf, acc, {lane}, 4); }}\n\
            }}\n\
            if (t == 0) {{ o[blockIdx.x] = acc; }}\n}}\n"
        )
    }

    /// Under `--assoc` and a fixed block, a sum that ends in shuffles is
    /// run in lockstep and read as a sum over the block: proved against
    /// the serial sum; a shuffle a lane too far is refuted by the concrete
    /// interpreter; a block whose shuffles read a lane of no thread leaves
    /// the result undefined, which the answer says (never equivalent).
    #[test]
    fn a_sum_ending_in_shuffles_is_a_sum_of_the_block() {
        let assoc = EquivOptions { assoc: true };
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        let v = text_version;
        let good = leak(shuffle_tail(8, "d"));
        let r = check_equivalence_with(&v(SERIAL_SUM_OF_8), &v(good), &Disk, &assoc);
        assert_eq!(r.verdict, Verdict::Equivalent, "{:?}", r.verdict);
        let far = leak(shuffle_tail(8, "d + 1"));
        let r = check_equivalence_with(&v(SERIAL_SUM_OF_8), &v(far), &Disk, &assoc);
        assert!(
            matches!(r.verdict, Verdict::Different(_)),
            "{:?}",
            r.verdict
        );
        // Without `--assoc` the exchange is not followed.
        let r = check_equivalence_with(
            &v(SERIAL_SUM_OF_8),
            &v(good),
            &Disk,
            &EquivOptions::default(),
        );
        match &r.verdict {
            Verdict::Unknown(why) => assert!(why.contains("warp shuffle"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    /// A warp sum over segments of 4 lanes on a block of 2 threads: lane
    /// 0's shuffle takes part with lanes 2 and 3 (its mask), which no
    /// thread is: undefined in CUDA, and the failure says so.
    #[test]
    fn shuffles_with_lanes_of_no_thread_leave_the_result_undefined() {
        let text = "__global__ void k(int *o, const int *a) {\n\
            __requires(blockDim.x == 2 && blockDim.y == 1 && blockDim.z == 1);\n\
            int acc = a[blockIdx.x * 2 + threadIdx.x];\n\
            for (int d = 2; d > 0; d /= 2) { acc += __shfl_down_sync(0xf, acc, d, 4); }\n\
            if (threadIdx.x == 0) { o[blockIdx.x] = acc; }\n}\n";
        let k = crate::analysis::lower_with_values(text, &Options::default(), "k").unwrap();
        assert_eq!(k.shuffles.last().map(|s| s.width), Some(4));
        let mut queries = 0;
        match symbolic::prove(&k, &k, &Options::default(), true, &mut queries) {
            Err(f) => {
                assert!(f.undefined, "{}", f.reason);
                assert!(f.reason.contains("lane 2"), "{}", f.reason);
            }
            Ok(()) => panic!("proved on a block whose shuffles read lanes of no thread"),
        }
    }

    /// The answer over several launches: proved on the larger blocks,
    /// undefined on the smaller ones, is conditional, never equivalent;
    /// an undefined launch above a proved one, or one neither proved nor
    /// undefined, leaves no such answer.
    #[test]
    fn launches_proved_above_and_undefined_below_make_a_conditional_answer() {
        let at = |x: i64, undefined: bool, eq: bool| {
            (
                LaunchAnswer {
                    block_x: Some(x),
                    undefined,
                },
                eq,
            )
        };
        let answers = [
            at(64, false, true),
            at(32, false, true),
            at(16, true, false),
        ];
        match undefined_outside(&answers, "undefined: lane 16") {
            Some(Verdict::Conditional {
                condition,
                outside: Outside::Undefined(why),
            }) => {
                assert!(condition.starts_with("blockDim.x >= 32"), "{condition}");
                assert!(why.contains("lane 16"));
            }
            other => panic!("{other:?}"),
        }
        let above = [at(16, false, true), at(32, true, false)];
        assert_eq!(undefined_outside(&above, "x"), None);
        let unknown = [at(64, false, true), at(16, false, false)];
        assert_eq!(undefined_outside(&unknown, "x"), None);
    }
}
