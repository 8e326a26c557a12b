//! A file analysed as its build compiles it: the translation unit with its
//! headers (`project::unit`), the build's flags (`compile_commands.json`),
//! the launch sites of its kernels in the project's host code
//! (`launch`: the file is checked once per distinct launch of a
//! kernel, and a finding says which launch it fails under), and the checks
//! only the project can make (missing headers, kernels emptied by the
//! preprocessor). Reports come back in the file's own positions.

use super::{host_data, launch, names};
use crate::cache::QueryCache;
use crate::frontend::FileContext;
use crate::options::{LaunchOverride, Options};
use crate::project::{compile_commands, config, unit, unit_cache, SearchPaths, Sources};
use crate::report::*;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};

/// Most launch sites a kernel is checked under (one analysis of the file each).
const MAX_SITES: usize = 32;
/// Most files of a project read for launch sites.
const MAX_SCANNED: usize = 400;

/// The result of analysing one file in its project.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    pub report: FileReport,
    /// Local headers the file includes (directly or not).
    pub includes: Vec<PathBuf>,
    /// The options the file was analysed with (build flags and the file's
    /// directives applied): `cuda_arch` is the device pass shown to users.
    pub options: Options,
    /// Other files of the project parsed for launch sites by this analysis
    /// (those that name one of its kernels and whose launch sites were not
    /// in the [`SiteIndex`] already).
    pub launch_files_parsed: usize,
    /// What the file's quick-fixes are computed from, as this analysis saw
    /// it (its unit and launches): the server's code actions use it.
    pub fix_basis: FixBasis,
    /// When a header is missing or outside the built-in model: the kernels
    /// of the file that use names nothing in the unit defines, with those
    /// names (a kernel not listed uses none).
    pub undefined_names: std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
}

/// What quick-fixes of a file's findings are computed from, so that they
/// are those of the analysis that reported the findings: the translation
/// unit's text (headers first) and the options of each launch it was
/// checked under (`Options::launch_sites`). A fix found verified by
/// `check --fixes` is then verified in the editor too.
#[derive(Clone, Debug, Default)]
pub struct FixBasis {
    text: String,
    prefix_len: usize,
    prefix_lines: u32,
    passes: Vec<Options>,
}

impl FixBasis {
    /// A text analysed on its own, under `options` (no project: an
    /// unsaved buffer).
    pub fn of_text(text: &str, options: &Options) -> FixBasis {
        FixBasis {
            text: text.to_string(),
            prefix_len: 0,
            prefix_lines: 0,
            passes: vec![options.clone()],
        }
    }
}

/// The quick-fixes of `findings` (in the file's positions, from the
/// analysis that made `basis`), computed on request under each launch the
/// analysis checked: `fixes[i]` is for `findings[i]`. As `check --fixes`
/// merges them, a fix is verified only if it is under every launch its
/// finding holds under; a fix that would edit a header is not offered.
pub fn quick_fixes(
    basis: &FixBasis,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
    findings: &[Finding],
) -> Vec<Vec<Fix>> {
    let to_unit = |p: &mut Point| {
        p.offset += basis.prefix_len as u32;
        p.line += basis.prefix_lines;
    };
    let in_unit: Vec<Finding> = findings
        .iter()
        .map(|f| {
            let mut f = f.clone();
            for s in std::iter::once(&mut f.span).chain(
                f.pairs
                    .iter_mut()
                    .flat_map(|p| [&mut p.first, &mut p.second]),
            ) {
                to_unit(&mut s.start);
                to_unit(&mut s.end);
            }
            f
        })
        .collect();
    let tree = crate::syntax::parse_unit(&basis.text, basis.prefix_len);
    let mut out: Vec<Option<Vec<Fix>>> = vec![None; findings.len()];
    for options in &basis.passes {
        let found = super::fixes_found(&basis.text, &tree, options, cache, cancel, &in_unit);
        for (kept, fixes) in out.iter_mut().zip(found) {
            let Some(fixes) = fixes else { continue };
            match kept {
                None => *kept = Some(fixes),
                Some(k) => confirm_fix_list(k, &fixes),
            }
        }
    }
    let in_header = |s: &Span| (s.start.offset as usize) < basis.prefix_len;
    out.into_iter()
        .map(|fixes| {
            let mut fixes = fixes.unwrap_or_default();
            fixes.retain(|x| x.edits.iter().all(|e| !in_header(&e.span)));
            for e in fixes.iter_mut().flat_map(|x| &mut x.edits) {
                for p in [&mut e.span.start, &mut e.span.end] {
                    p.offset -= basis.prefix_len as u32;
                    p.line -= basis.prefix_lines;
                }
            }
            fixes
        })
        .collect()
}

/// A file's translation unit as its build compiles it: the unit's text
/// (headers first), the options with the build's flags and the file's
/// directives applied, and notes on the build's flags.
struct Built {
    unit: unit::Unit,
    options: Options,
    abs: PathBuf,
    dir: PathBuf,
    dirs: Vec<PathBuf>,
    db: Option<PathBuf>,
    notes: Vec<Finding>,
}

fn build(
    path: &Path,
    text: &str,
    options: &Options,
    search: &SearchPaths,
    sources: &dyn Sources,
) -> Built {
    let mut notes = Vec::new();
    let mut dirs = search.include_dirs.clone();
    let mut options = crate::options::with_file_directives(text, options);
    let abs = compile_commands::normalize(path);
    let dir = abs.parent().map(Path::to_path_buf).unwrap_or_default();
    let db = compile_commands::locate(&abs, search.compile_commands.as_deref());
    if let Some(db) = &db {
        match compile_commands::flags_for(db, &abs) {
            Ok(Some(flags)) => {
                dirs.extend(flags.include_dirs);
                for (n, v) in flags.defines {
                    if !options.defines.iter().any(|(m, _)| *m == n) {
                        options.defines.push((n, v));
                    }
                }
                if options.cuda_arch == config::DEFAULT_CUDA_ARCH {
                    options.cuda_arch = flags.cuda_arch.unwrap_or(options.cuda_arch);
                }
            }
            Ok(None) => {}
            Err(message) => notes.push(Finding::new(
                FindingKind::Include,
                None,
                Span::default(),
                message,
            )),
        }
    }
    let unit = unit_cache::build_in_context(&abs, text, &dirs, &search.context, sources, &options);
    // The directive's lines as lines of the unit: every message is mapped
    // from the unit's lines back to the file's (`file_lines`).
    options.shift_directive_lines(unit.prefix_lines);
    Built {
        unit,
        options,
        abs,
        dir,
        dirs,
        db,
        notes,
    }
}

/// The launches of a file's kernels found in its project.
struct Launches {
    /// The distinct launches of each kernel the file defines.
    by_kernel: HashMap<String, Vec<LaunchOverride>>,
    /// How many of the project's other files were parsed for them (not in
    /// the [`SiteIndex`]).
    parsed: usize,
    /// The files read for launch sites (the file first), as shown.
    searched: Vec<String>,
}

/// The distinct launches of each kernel the file defines, from the launch
/// sites in its own host code and in the other files of its project.
fn launches(
    b: &Built,
    tree: &tree_sitter::Tree,
    cx: &FileContext,
    sources: &dyn Sources,
) -> Launches {
    let unit = &b.unit;
    let kernels = kernel_params(unit, cx);
    let root = project_root(&b.abs, b.db.as_deref());
    let outside = OtherFiles::new(&root, &b.abs, &unit.includes, sources);
    let origin = |line: u32| {
        (line >= unit.prefix_lines)
            .then(|| format!("{}:{}", file_name(&b.abs), line - unit.prefix_lines + 1))
    };
    let pitches = OutsidePitches::new(&outside, &b.dirs, &b.options);
    let others = OtherHostUnits::new(&outside, &b.dirs, &b.options);
    let mut sites = launch::sites(
        &unit.text,
        tree.root_node(),
        cx,
        &kernels,
        &origin,
        &launch::Outside {
            named: &|name| outside.names(name),
            pitches: &|name| pitches.widths(name),
            units: &others,
        },
    );
    let mut launch_files_parsed = 0;
    let mut searched = vec![file_name(&b.abs)];
    if !kernels.is_empty() {
        let (theirs, parsed, files) =
            sibling_sites(&root, &b.abs, &b.dirs, &b.options, &kernels, sources);
        // A header is compiled only inside its includers: a launch in it
        // runs as each includer compiles it (with the callers that unit
        // has), never as the header's own unit reads it alone. Its own
        // reading is replaced once every project file that may include it
        // was read (`theirs.complete`).
        if theirs.complete && is_header(&b.abs) {
            sites.retain(|s| {
                s.fact
                    .origin
                    .as_ref()
                    .is_none_or(|o| !theirs.into_me.contains(o))
            });
        }
        sites.extend(theirs.sites);
        launch_files_parsed = parsed;
        searched.extend(files.iter().map(|f| {
            f.strip_prefix(&root)
                .unwrap_or(f)
                .display()
                .to_string()
                .replace('\\', "/")
        }));
    }
    let mut by_kernel = union_of_launches(sites);
    for (kernel, list) in &mut by_kernel {
        if let Some((block, grid)) = b.options.user_launch(kernel) {
            *list = under_user_launch(std::mem::take(list), block, grid);
        }
    }
    Launches {
        by_kernel,
        parsed: launch_files_parsed,
        searched,
    }
}

/// The launches of a kernel whose sizes the user fixed: the sites the
/// user's sizes agree with (`if (bs == 16) k<16><<<g, dim3(bs, bs)>>>` is
/// not `k<16>` under 32 x 32 blocks), each with its instantiation, the
/// facts the host code gives it and the sizes it fixes that the user left
/// open (`--block-dim 256` keeps the grid the host computes: options add
/// to host facts, and a site they contradict is not among these); when
/// none agrees, every site, with only what the code fixes whatever the
/// sizes (the template arguments and argument types it launches with).
/// Once per distinct launch left.
fn under_user_launch(
    sites: Vec<LaunchOverride>,
    block: Option<[u32; 3]>,
    grid: Option<[u32; 3]>,
) -> Vec<LaunchOverride> {
    let agree: Vec<&LaunchOverride> = sites
        .iter()
        .filter(|s| agrees_with(s, block, grid))
        .collect();
    let keep_facts = !agree.is_empty();
    let chosen = if keep_facts {
        agree
    } else {
        sites.iter().collect()
    };
    let mut out: Vec<LaunchOverride> = Vec::new();
    for s in chosen {
        let kept = LaunchOverride {
            kernel_glob: s.kernel_glob.clone(),
            origin: s.origin.clone(),
            template_args: s.template_args.clone(),
            arg_types: s.arg_types.clone(),
            not_understood: s.not_understood.clone(),
            requires: if keep_facts {
                s.requires.clone()
            } else {
                Vec::new()
            },
            block_dim: if keep_facts { s.block_dim } else { None },
            grid_dim: if keep_facts { s.grid_dim } else { None },
            ..Default::default()
        };
        if !out.iter().any(|o| same_launch(o, &kept)) {
            out.push(kept);
        }
    }
    out
}

/// Whether a launch site may be the launch the user fixed: its constant
/// sizes are the user's, and none of its facts that name only launch sizes
/// is false under the user's sizes (a fact naming anything else is not
/// decided here).
fn agrees_with(site: &LaunchOverride, block: Option<[u32; 3]>, grid: Option<[u32; 3]>) -> bool {
    let differs =
        |a: Option<[u32; 3]>, b: Option<[u32; 3]>| matches!((a, b), (Some(x), Some(y)) if x != y);
    if differs(site.block_dim, block) || differs(site.grid_dim, grid) {
        return false;
    }
    let mut sizes: Vec<(String, u32)> = Vec::new();
    for (name, dims) in [("blockDim", block), ("gridDim", grid)] {
        if let Some(d) = dims {
            for (axis, v) in ["x", "y", "z"].iter().zip(d) {
                sizes.push((format!("{name}.{axis}"), v));
            }
        }
    }
    site.requires.iter().all(|fact| {
        let mut e = fact.clone();
        for (name, v) in &sizes {
            e = e.replace(name.as_str(), &format!("({v})"));
        }
        // Another name left: not decided by the sizes alone.
        if e.chars().any(|c| c.is_ascii_alphabetic() || c == '_') {
            return true;
        }
        let src = format!("int __fact = ({e});");
        let tree = crate::parse(&src, None);
        let value = tree
            .root_node()
            .named_child(0)
            .and_then(|d| d.child_by_field_name("declarator"))
            .and_then(|d| d.child_by_field_name("value"))
            .and_then(|v| crate::frontend::const_eval(&src, v, &HashMap::new(), &HashMap::new()));
        value != Some(0)
    })
}

/// The launches each kernel is checked under, whose union is every way it
/// can run: its distinct launch sites; or, when one of its uses may launch
/// it in a way no site shows (or it has more distinct launches than are
/// checked one by one), one launch of any size with any arguments, which
/// covers them all, naming why.
fn union_of_launches(sites: Vec<launch::Site>) -> HashMap<String, Vec<LaunchOverride>> {
    let mut by_kernel: HashMap<String, Vec<LaunchOverride>> = HashMap::new();
    let mut unknown: HashMap<String, Vec<String>> = HashMap::new();
    for s in sites {
        if !s.fact.not_understood.is_empty() {
            unknown
                .entry(s.kernel)
                .or_default()
                .extend(s.fact.not_understood);
            continue;
        }
        let list = by_kernel.entry(s.kernel.clone()).or_default();
        add_launch(list, s.fact);
    }
    for (kernel, list) in &mut by_kernel {
        if list.len() > MAX_SITES {
            unknown.entry(kernel.clone()).or_default().push(format!(
                "{} distinct launches, more than the {MAX_SITES} checked one by one",
                list.len()
            ));
        }
    }
    for (kernel, why) in unknown {
        let any = LaunchOverride {
            kernel_glob: kernel.clone(),
            not_understood: why,
            ..Default::default()
        };
        by_kernel.insert(kernel, vec![any]);
    }
    by_kernel
}

/// A file in its project, as `check` analyses it, for `syncscope equiv`:
/// the translation unit's text, its options, and the launches of each
/// kernel the file defines found in the project's code.
pub(crate) struct InProject {
    pub text: String,
    pub options: Options,
    pub launches: HashMap<String, Vec<LaunchOverride>>,
}

pub(crate) fn in_project(
    path: &Path,
    text: &str,
    options: &Options,
    search: &SearchPaths,
    sources: &dyn Sources,
) -> InProject {
    let b = build(path, text, options, search, sources);
    let tree = crate::syntax::parse_unit(&b.unit.text, b.unit.prefix_len);
    let cx = crate::frontend::collect(&b.unit.text, tree.root_node(), &b.options);
    let found = launches(&b, &tree, &cx, sources);
    InProject {
        text: b.unit.text,
        options: b.options,
        launches: found.by_kernel,
    }
}

/// Analyses the file at `path` holding `text` in its project. `tree` is the
/// file's own parse (reused when the unit is the file alone).
#[allow(clippy::too_many_arguments)]
pub fn analyze(
    path: &Path,
    text: &str,
    tree: Option<&tree_sitter::Tree>,
    options: &Options,
    search: &SearchPaths,
    sources: &dyn Sources,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
    progress: Option<&crate::report::Progress>,
) -> Analysis {
    let built = build(path, text, options, search, sources);
    let unit = &built.unit;
    let dir = &built.dir;
    let parsed;
    // The file's own parse is the unit's when the unit is the file as
    // written (no header, no conditional branch blanked).
    let unit_tree = match tree {
        Some(t) if unit.prefix_len == 0 && unit.text == text => t,
        _ => {
            parsed = crate::syntax::parse_unit(&unit.text, unit.prefix_len);
            &parsed
        }
    };
    let cx = crate::frontend::collect(&unit.text, unit_tree.root_node(), &built.options);
    let found = launches(&built, unit_tree, &cx, sources);
    let (by_kernel, launch_files_parsed) = (&found.by_kernel, found.parsed);
    let unresolved = names::unresolved_by_kernel(unit, unit_tree, &cx);
    let passes = by_kernel.values().map(Vec::len).max().unwrap_or(0).max(1);
    let mut reports: Vec<FileReport> = Vec::new();
    let mut fix_passes = Vec::new();
    // Kernels of several launches found racy under an earlier one.
    let mut racy_before: std::collections::BTreeSet<String> = Default::default();
    for pass in 0..passes {
        let mut o = built.options.clone();
        o.launch_sites = by_kernel
            .values()
            .filter_map(|l| l.get(pass).or(l.last()).cloned())
            .collect();
        o.launch_sites
            .sort_by(|a, b| a.kernel_glob.cmp(&b.kernel_glob));
        o.unverifiable_kernels = unresolved.keys().cloned().collect();
        if let Some(last) = reports.last() {
            let several = |k: &KernelReport| by_kernel.get(&k.name).is_some_and(|l| l.len() > 1);
            racy_before.extend(
                last.kernels
                    .iter()
                    .filter(|k| k.status == KernelStatus::Racy && several(k))
                    .map(|k| k.name.clone()),
            );
        }
        o.skipped_branches = unit.skipped.clone();
        // Verified without the facts that cannot change a verdict (a
        // `case` label over a host variable the kernel never sees): two
        // passes that differ only there ask the same queries, answered
        // once by the cache. The launch is still described with them.
        let mut verified = o.clone();
        for site in &mut verified.launch_sites {
            site.requires = launch::without_isolated_host_facts(&site.requires);
        }
        // The merged verdict of a kernel racy under an earlier launch is
        // racy whatever this launch answers: its race search here stops
        // at its first race. Not with fixes: a race's fix is verified only
        // under every launch the race is found under, so each launch's
        // search must be whole (a race left unfound under this launch
        // would keep a fix or a race condition proved under the first
        // launch alone).
        if !o.compute_fixes {
            verified.racy_under_earlier_launch = racy_before.iter().cloned().collect();
        }
        // Past the first pass, only the kernels launched that many ways:
        // the others are the first pass's models, and `merge` reads their
        // results from it alone.
        if pass > 0 {
            let mut launched: Vec<String> = by_kernel
                .iter()
                .filter(|(_, l)| l.len() > pass)
                .map(|(k, _)| k.clone())
                .collect();
            launched.sort();
            verified.only_kernels = Some(launched);
        }
        let r = super::analyze_unit(
            &unit.text,
            unit_tree,
            unit.prefix_len,
            &verified,
            cache,
            cancel,
            progress,
        );
        if !fix_passes.contains(&o) {
            fix_passes.push(o.clone());
        }
        let mut r = if unit.prefix_len == 0 {
            r
        } else {
            to_file(r, unit, dir)
        };
        describe_launches(&mut r, &o);
        // A size from the file's directive names a line of the unit.
        if unit.prefix_len != 0 {
            for l in r.kernels.iter_mut().filter_map(|k| k.launch.as_mut()) {
                *l = file_lines(l, unit, dir);
            }
        }
        reports.push(r);
    }
    let mut report = merge(reports, by_kernel);
    report
        .findings
        .extend(not_understood_notes(&report, by_kernel));
    note_unknown_launches(&mut report, &built.options, &found);
    names::check_kernels(unit, &cx, &unresolved, &mut report);
    report.findings.extend(built.notes.iter().cloned());
    report.findings.extend(include_findings(unit, dir));
    Analysis {
        report,
        includes: built.unit.includes.clone(),
        options: built.options.clone(),
        launch_files_parsed,
        fix_basis: FixBasis {
            text: unit.text.clone(),
            prefix_len: unit.prefix_len,
            prefix_lines: unit.prefix_lines,
            passes: fix_passes,
        },
        undefined_names: names::names_nothing_defines(unit, unit_tree, &cx),
    }
}

/// The kernel models `check` verifies for the file at `path` holding
/// `text`, for `syncscope model`: the same unit (headers, build flags, the
/// file's directives, `syncscope.toml` through `options`) and one model per
/// distinct launch of each kernel defined in the file (a kernel launched
/// two ways is lowered under each, as `analyze` verifies it), in the
/// file's order. Only the driver lowers, so the model printed is the model
/// verified.
pub fn models(
    path: &Path,
    text: &str,
    options: &Options,
    search: &SearchPaths,
    sources: &dyn Sources,
) -> Vec<crate::model::Kernel> {
    let built = build(path, text, options, search, sources);
    let unit = &built.unit;
    let tree = crate::syntax::parse_unit(&unit.text, unit.prefix_len);
    let cx = crate::frontend::collect(&unit.text, tree.root_node(), &built.options);
    let by_kernel = launches(&built, &tree, &cx, sources).by_kernel;
    let passes = by_kernel.values().map(Vec::len).max().unwrap_or(0).max(1);
    let mut out: Vec<crate::model::Kernel> = Vec::new();
    for pass in 0..passes {
        let mut o = built.options.clone();
        o.launch_sites = by_kernel
            .values()
            .filter_map(|l| l.get(pass).or(l.last()).cloned())
            .collect();
        o.launch_sites
            .sort_by(|a, b| a.kernel_glob.cmp(&b.kernel_glob));
        let lowered = crate::parallel::on_analysis_stack("syncscope-model", || {
            crate::frontend::lower_file(&unit.text, &tree, &o)
        })
        .unwrap_or_default();
        for k in lowered {
            let in_file = k.def_span.start.offset as usize >= unit.prefix_len;
            // A kernel with one launch is the same model in every pass.
            let seen = out
                .iter()
                .any(|m| m.name == k.name && m.def_span == k.def_span && *m == k);
            if in_file && !seen {
                out.push(k);
            }
        }
    }
    out.sort_by_key(|k| k.def_span.start.offset);
    for k in &mut out {
        spans_to_file(k, unit);
    }
    out
}

/// One note per kernel checked under a launch of any size because some
/// way it can run was not understood: which uses, where.
fn not_understood_notes(
    report: &FileReport,
    by_kernel: &HashMap<String, Vec<LaunchOverride>>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for k in &report.kernels {
        let Some(why) = by_kernel
            .get(&k.name)
            .and_then(|l| l.iter().find(|s| !s.not_understood.is_empty()))
        else {
            continue;
        };
        out.push(Finding::new(
            FindingKind::Note,
            Some(&k.name),
            k.span,
            format!(
                "`{}` is checked for a launch of any size with any arguments: the host code launches it in ways not understood ({}), so no launch site's sizes or arguments are assumed",
                k.name,
                why.not_understood.join("; ")
            ),
        ));
    }
    out
}

/// What "a launch of any size" leaves out: the dimensions the kernel never
/// reads are checked as 1 (a 1-D kernel launched with 2-D blocks has
/// threads that differ only in `threadIdx.y`, which it cannot tell apart).
fn one_dimensional(dims: &[&str]) -> String {
    let (names, verb, them) = match dims {
        [] => return String::new(),
        [one] => (one.to_string(), "is", "a dimension"),
        [init @ .., last] => (
            format!("{} and {last}", init.join(", ")),
            "are",
            "dimensions",
        ),
    };
    format!(
        ", except that {names} {verb} 1 ({them} the kernel never reads; --block-dim/--grid-dim give others)"
    )
}

/// Files named in a "no launch site found" note before the rest are counted.
const SEARCHED_NAMED: usize = 4;

/// Says, for each kernel of the report that no understood launch bounds
/// (the user fixed no size, and the project's code has no launch site of
/// it or launches it in ways not understood), why: in its report
/// (`KernelReport::launch_note`) and as a note on its races and
/// divergences, whose witness may use a launch the host code never makes.
fn note_unknown_launches(report: &mut FileReport, options: &Options, found: &Launches) {
    for k in &mut report.kernels {
        if options.user_launch(&k.name).is_some() {
            continue;
        }
        let note = match found.by_kernel.get(&k.name) {
            None => {
                let shown: Vec<&str> = found
                    .searched
                    .iter()
                    .take(SEARCHED_NAMED)
                    .map(String::as_str)
                    .collect();
                let more = found.searched.len().saturating_sub(SEARCHED_NAMED);
                let more = if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                };
                format!(
                    "no launch site found (searched: {}{more}); checked for a launch of any size with any arguments",
                    shown.join(", ")
                )
            }
            Some(list) => match list.iter().find(|s| !s.not_understood.is_empty()) {
                Some(any) => format!(
                    "launched in ways not understood ({}); checked for a launch of any size with any arguments",
                    any.not_understood.join("; ")
                ),
                None => continue,
            },
        };
        k.launch_note = Some(note + &one_dimensional(&k.dims_taken_as_one));
    }
    // Each kernel's note by its name (the first kernel of a name, as a
    // search of the list finds it): a file of many kernels with a finding
    // each compared every finding's kernel with every kernel's name.
    let mut notes: HashMap<&str, Option<&String>> = HashMap::new();
    for k in &report.kernels {
        notes
            .entry(k.name.as_str())
            .or_insert(k.launch_note.as_ref());
    }
    for f in &mut report.findings {
        if !matches!(
            f.kind,
            FindingKind::DataRace | FindingKind::BarrierDivergence | FindingKind::Unconfirmed
        ) {
            continue;
        }
        let Some(note) = f
            .kernel
            .as_deref()
            .and_then(|name| notes.get(name).copied().flatten())
        else {
            continue;
        };
        // The reason, without the list the kernel's own record gives.
        let why = note.split(" (").next().unwrap_or(note);
        // The race's condition on the parameters is computed with the
        // quick-fixes (never before the diagnostics): say where to get it.
        let condition = if f.kind == FindingKind::DataRace && f.race_condition.is_none() {
            "; `check --fixes` and the editor's hover state the parameter values it needs"
        } else {
            ""
        };
        f.notes.push(format!(
            "no launch of `{}` is understood ({why}): the witness's launch and arguments may be ones the host code never uses{condition}",
            f.kernel.as_deref().unwrap_or_default()
        ));
    }
}

/// Moves a model's spans from the unit to the file, as `to_file` moves a
/// report's: code inlined from a header is shown at its `#include`.
fn spans_to_file(k: &mut crate::model::Kernel, unit: &unit::Unit) {
    use crate::model::Stmt;
    fn stmts(body: &mut [Stmt], unit: &unit::Unit) {
        for s in body {
            match s {
                Stmt::Access(a) => drop(unit.to_file(&mut a.span)),
                Stmt::Barrier(b) => drop(unit.to_file(&mut b.span)),
                Stmt::If(t, e) => {
                    stmts(t, unit);
                    stmts(e, unit);
                }
                Stmt::Loop(l) => stmts(&mut l.body, unit),
                Stmt::LoopExit(_) => {}
            }
        }
    }
    if unit.prefix_len == 0 {
        return;
    }
    for span in [&mut k.span, &mut k.def_span] {
        drop(unit.to_file(span));
    }
    for a in &mut k.assertions {
        drop(unit.to_file(&mut a.span));
    }
    for u in &mut k.unsupported {
        drop(unit.to_file(&mut u.span));
    }
    stmts(&mut k.body, unit);
}

/// Adds `site` to a kernel's distinct launches, unless one of them covers
/// it; a launch it covers is dropped in its favour. A launch covers
/// another of the same sizes, template arguments and argument types whose
/// facts include all of its own: every run of the other is a run of it,
/// so a race or divergence under the other is one under it, and a proof
/// under it is one under the other (the merged verdict is the worst of
/// the launches, so checking the covered one again changes nothing; one
/// of NVIDIA's recursive sorts launches a kernel under `len > 1024` and
/// under `len > 1024 && len != 0`, a second full verification).
fn add_launch(list: &mut Vec<LaunchOverride>, site: LaunchOverride) {
    // The same launch at another site is dropped as it always was; only a
    // launch with more facts is named as covered.
    if let Some(wider) = list.iter_mut().find(|f| covers(f, &site)) {
        if !covers(&site, wider) {
            note_covered(wider, &site);
        }
        return;
    }
    let mut site = site;
    list.retain(|f| {
        let covered = covers(&site, f);
        if covered {
            note_covered(&mut site, f);
        }
        !covered
    });
    list.push(site);
}

fn note_covered(wide: &mut LaunchOverride, narrow: &LaunchOverride) {
    for at in narrow.origin.iter().chain(&narrow.covers) {
        if !wide.covers.contains(at) && wide.origin.as_ref() != Some(at) {
            wide.covers.push(at.clone());
        }
    }
}

/// Whether `wide` covers `narrow` (see [`add_launch`]); a launch covers
/// itself.
fn covers(wide: &LaunchOverride, narrow: &LaunchOverride) -> bool {
    same_shape(wide, narrow)
        && wide.not_understood.is_empty()
        && narrow.not_understood.is_empty()
        && wide.requires.iter().all(|f| narrow.requires.contains(f))
}

/// The same launch: the same sizes and the same facts (wherever found).
pub(crate) fn same_launch(a: &LaunchOverride, b: &LaunchOverride) -> bool {
    same_shape(a, b) && a.requires == b.requires
}

/// The same sizes, template arguments and argument types, whatever the
/// facts.
fn same_shape(a: &LaunchOverride, b: &LaunchOverride) -> bool {
    a.block_dim == b.block_dim
        && a.grid_dim == b.grid_dim
        && a.template_args == b.template_args
        && a.arg_types == b.arg_types
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The kernels defined in the analysed file, with their parameters.
fn kernel_params(unit: &unit::Unit, cx: &FileContext) -> HashMap<String, launch::Params> {
    let text = unit.text.as_str();
    let mut out = HashMap::new();
    for k in cx
        .kernels
        .iter()
        .filter(|k| k.node.start_byte() >= unit.prefix_len)
    {
        let params = crate::syntax::function_params(k.node)
            .into_iter()
            .map(|p| {
                let name = p
                    .child_by_field_name("declarator")
                    .and_then(|d| crate::syntax::declarator_name(text, d))
                    .unwrap_or_default();
                let scalar = p
                    .child_by_field_name("declarator")
                    .is_some_and(|d| d.kind() == "identifier");
                let ty = p
                    .child_by_field_name("type")
                    .map(|t| crate::syntax::node_text(text, t))
                    .unwrap_or("");
                let integer = scalar && is_integer_type(ty);
                (name, integer, crate::frontend::int_range(ty))
            })
            .collect();
        out.insert(k.name.clone(), params);
    }
    out
}

fn is_integer_type(ty: &str) -> bool {
    let ty = ty.trim();
    ty == "index_t" || launch::INTEGER_TYPE_NAMES.contains(&ty)
}

/// Where a project's host code is looked for: the folder of the nearest
/// syncscope.toml or compile_commands.json above the file, else its own.
fn project_root(file: &Path, db: Option<&Path>) -> PathBuf {
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let toml = config::find_upwards(&dir).and_then(|p| p.parent().map(Path::to_path_buf));
    let db_dir = db.and_then(|p| p.parent()).map(|p| {
        if p.file_name().is_some_and(|n| n == "build") {
            p.parent().map(Path::to_path_buf).unwrap_or_default()
        } else {
            p.to_path_buf()
        }
    });
    // The deeper of the two: the nearest project the file belongs to.
    [toml, db_dir]
        .into_iter()
        .flatten()
        .filter(|r| dir.starts_with(r))
        .max_by_key(|r| r.components().count())
        .unwrap_or(dir)
}

/// The launch sites found in the project's other files, by the hash of
/// everything they were read from: the file's path, its translation unit
/// (its text, as the open buffer has it when there is one, and the text of
/// every header it includes), the options and the parameters of the kernels
/// looked for. An analysis after an edit (in the server, every keystroke)
/// parses none of the project's host code again unless one of these
/// changed; a changed file or header, on disk or in a buffer, has another
/// key, so nothing is invalidated by hand and no stale site is seen.
/// Process-wide: the CLI and the server share the rule, and the key makes
/// a hit the same result the scan would give (same input, same verdict).
pub struct SiteIndex;

/// Entries kept before the index is cleared (bounds memory).
const SITE_INDEX_LIMIT: usize = 4096;

impl SiteIndex {
    fn entries() -> &'static Mutex<HashMap<u64, Arc<IndexedSites>>> {
        static ENTRIES: OnceLock<Mutex<HashMap<u64, Arc<IndexedSites>>>> = OnceLock::new();
        ENTRIES.get_or_init(Mutex::default)
    }

    fn get(key: u64) -> Option<Arc<IndexedSites>> {
        let map = Self::entries().lock().unwrap_or_else(|e| e.into_inner());
        map.get(&key).cloned()
    }

    fn insert(key: u64, sites: Arc<IndexedSites>) {
        let mut map = Self::entries().lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= SITE_INDEX_LIMIT {
            map.clear();
        }
        map.insert(key, sites);
    }

    /// Forgets every entry (benchmarks measure the scan without it).
    pub fn clear() {
        Self::entries()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}

/// One file's launch sites in the [`SiteIndex`], with the answers they
/// were read under to "does another file of the project name this host
/// function?" (whether its callers in the file are all its callers): a hit
/// whose answers changed (another file now calls one) is read again.
struct IndexedSites {
    sites: Vec<launch::Site>,
    /// The origins of the sites in the analysed file's own text, read
    /// where this file includes it.
    into_me: Vec<String>,
    asked: Vec<(String, bool)>,
    /// The answers about allocations into globals in the other files
    /// ([`OutsidePitches`]) the sites rest on.
    asked_pitches: Vec<(String, Option<Vec<i64>>)>,
    /// The other files' host code the sites read (a helper's definition,
    /// the calls of the launch's host function: `host_data`), by name and
    /// the fingerprint of the files naming it ([`OtherHostUnits`]).
    asked_units: Vec<(String, Option<u64>)>,
}

/// What the other files of a project say about the analysed file's
/// kernels.
struct SiblingSites {
    sites: Vec<launch::Site>,
    /// The origins (in the analysed file) of launches in the analysed
    /// file's own text that an includer's unit read.
    into_me: HashSet<String>,
    /// Whether every project file that may include the analysed file was
    /// read (the project's files were not cut at [`MAX_SCANNED`]).
    complete: bool,
}

/// Whether a file is a header by its extension: compiled only where a
/// source file includes it.
fn is_header(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("h" | "hh" | "hpp" | "hxx" | "cuh" | "inl")
    )
}

/// The base names of the files that include `me`, directly or through
/// other files, by a textual over-approximation: a file whose text
/// contains the base name of `me` or of such a file.
fn includer_names(me: &Path, texts: &[(PathBuf, String)]) -> Vec<String> {
    let mut names = vec![file_name(me)];
    loop {
        let before = names.len();
        for (f, t) in texts {
            let n = file_name(f);
            if !names.contains(&n) && names.iter().any(|m| t.contains(m.as_str())) {
                names.push(n);
            }
        }
        if names.len() == before {
            return names;
        }
    }
}

/// The [`SiteIndex`] key of the launch sites of `kernels` in `file`, whose
/// translation unit is `u`.
fn site_key(
    file: &Path,
    analysed: &Path,
    u: &unit::Unit,
    options_hash: u64,
    kernels: &HashMap<String, launch::Params>,
) -> u64 {
    let mut wanted: Vec<_> = kernels.iter().collect();
    wanted.sort();
    super::hash_of(&(
        file,
        analysed,
        &u.text,
        u.prefix_len,
        u.prefix_lines,
        options_hash,
        wanted,
    ))
}

/// Launch sites of the file's kernels in the other source files of its
/// project (each read only if it launches one of them by name), and how
/// many files were parsed for them (the others came from the [`SiteIndex`]),
/// and the files looked at.
fn sibling_sites(
    root: &Path,
    me: &Path,
    dirs: &[PathBuf],
    options: &Options,
    kernels: &HashMap<String, launch::Params>,
    sources: &dyn Sources,
) -> (SiblingSites, usize, Vec<PathBuf>) {
    let mut out = Vec::new();
    let mut into_me = HashSet::new();
    let mut parsed = 0;
    let options_hash = super::hash_of(&format!("{options:?}"));
    let all = source_files(root);
    let complete = all.len() < MAX_SCANNED;
    let files: Vec<PathBuf> = all.into_iter().filter(|f| f != me).collect();
    let texts: Vec<(PathBuf, String)> = files
        .iter()
        .filter_map(|f| sources.read(f).map(|t| (f.clone(), t)))
        .collect();
    let includers = includer_names(me, &texts);
    let me_name = file_name(me);
    for (f, text) in &texts {
        let f = f.as_path();
        // A file that names none of the kernels neither launches one nor
        // takes one's address, unless it may include the analysed file
        // (whose own host code it then compiles).
        if !kernels.keys().any(|k| text.contains(k.as_str()))
            && !includers.iter().any(|n| text.contains(n.as_str()))
        {
            continue;
        }
        let d = unit_dirs(f, dirs);
        let u = unit_cache::build(f, text, &d, sources, options);
        let key = site_key(f, me, &u, options_hash, kernels);
        // Another file (the analysed one included) that names a host
        // function of this one may call it: its callers here are then not
        // all its callers.
        let outside = OtherFiles::new(root, f, &u.includes, sources);
        let pitches = OutsidePitches::new(&outside, &d, options);
        let others = OtherHostUnits::new(&outside, &d, options);
        if let Some(known) = SiteIndex::get(key) {
            if known.asked.iter().all(|(n, a)| outside.names(n) == *a)
                && known
                    .asked_pitches
                    .iter()
                    .all(|(n, a)| pitches.widths(n) == *a)
                && known
                    .asked_units
                    .iter()
                    .all(|(n, a)| others.fingerprint(n) == *a)
            {
                out.extend(known.sites.iter().cloned());
                into_me.extend(known.into_me.iter().cloned());
                continue;
            }
        }
        parsed += 1;
        let t = crate::syntax::parse_unit(&u.text, u.prefix_len);
        let cx = crate::frontend::collect(&u.text, t.root_node(), options);
        // Kernels the other file defines itself are its own.
        let theirs: Vec<&str> = cx
            .kernels
            .iter()
            .filter(|k| k.node.start_byte() >= u.prefix_len)
            .map(|k| k.name.as_str())
            .collect();
        let wanted: HashMap<String, launch::Params> = kernels
            .iter()
            .filter(|(k, _)| !theirs.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let name = file_name(f);
        // The lines of the analysed file's text in the prefix.
        let mine: Vec<(u32, u32)> = u
            .parts
            .iter()
            .filter(|p| p.path == me)
            .map(|p| {
                let lines = u.text[p.start..p.end].matches('\n').count() as u32;
                (p.start_line, p.start_line + lines)
            })
            .collect();
        let asked = std::cell::RefCell::new(Vec::new());
        let asked_pitches = std::cell::RefCell::new(Vec::new());
        let found = launch::sites(
            &u.text,
            t.root_node(),
            &cx,
            &wanted,
            &|line| {
                if line >= u.prefix_lines {
                    return Some(format!("{name}:{}", line - u.prefix_lines + 1));
                }
                // The analysed file's own text inside this unit's prefix:
                // its host code as this file compiles it.
                let part = mine.iter().find(|(s, e)| *s <= line && line < *e)?;
                Some(format!("{me_name}:{}", line - part.0 + 1))
            },
            &launch::Outside {
                named: &|n| {
                    let a = outside.names(n);
                    asked.borrow_mut().push((n.to_string(), a));
                    a
                },
                pitches: &|n| {
                    let w = pitches.widths(n);
                    asked_pitches.borrow_mut().push((n.to_string(), w.clone()));
                    w
                },
                units: &others,
            },
        );
        let mine_origins: Vec<String> = found
            .iter()
            .filter_map(|s| s.fact.origin.clone())
            .filter(|o| {
                o.strip_prefix(me_name.as_str())
                    .is_some_and(|r| r.starts_with(':'))
                    && !o.starts_with(&format!("{name}:"))
            })
            .collect();
        out.extend(found.iter().cloned());
        into_me.extend(mine_origins.iter().cloned());
        SiteIndex::insert(
            key,
            Arc::new(IndexedSites {
                sites: found,
                into_me: mine_origins,
                asked: asked.into_inner(),
                asked_pitches: asked_pitches.into_inner(),
                asked_units: others.asked(),
            }),
        );
    }
    (
        SiblingSites {
            sites: out,
            into_me,
            complete,
        },
        parsed,
        files,
    )
}

/// A file's path and its text (`None`: it cannot be read).
type ReadFile = (PathBuf, Option<String>);

/// The project's files outside one unit (the file and the headers it
/// includes), each with its text (`None`: it cannot be read), listed and
/// read once, on the first question of any of the readers below. `None`
/// when there are more files than are scanned.
struct OtherFiles<'a> {
    root: &'a Path,
    me: &'a Path,
    includes: &'a [PathBuf],
    sources: &'a dyn Sources,
    listed: OnceLock<Option<Vec<ReadFile>>>,
}

impl<'a> OtherFiles<'a> {
    fn new(
        root: &'a Path,
        me: &'a Path,
        includes: &'a [PathBuf],
        sources: &'a dyn Sources,
    ) -> Self {
        OtherFiles {
            root,
            me,
            includes,
            sources,
            listed: OnceLock::new(),
        }
    }

    fn list(&self) -> Option<&[ReadFile]> {
        self.listed
            .get_or_init(|| {
                let files = source_files(self.root);
                if files.len() >= MAX_SCANNED {
                    return None;
                }
                let mine = |f: &PathBuf| {
                    f == self.me
                        || self
                            .includes
                            .iter()
                            .any(|i| compile_commands::normalize(i) == *f)
                };
                Some(
                    files
                        .into_iter()
                        .filter(|f| !mine(f))
                        .map(|f| {
                            let text = self.sources.read(&f);
                            (f, text)
                        })
                        .collect(),
                )
            })
            .as_deref()
    }

    /// Every file with its text; `None` when one of them cannot be read
    /// (or there are more files than are scanned).
    fn all_read(&self) -> Option<Vec<(&PathBuf, &str)>> {
        self.list()?
            .iter()
            .map(|(f, t)| t.as_deref().map(|t| (f, t)))
            .collect()
    }

    /// Whether a name occurs in them (an unreadable file is left out; too
    /// many files: any name may occur): a host function named there may
    /// be called there, with arguments the unit does not show.
    fn names(&self, name: &str) -> bool {
        match self.list() {
            None => true,
            Some(files) => files
                .iter()
                .filter_map(|(_, t)| t.as_deref())
                .any(|t| super::kernel_uses::macro_names(t, name)),
        }
    }
}

/// The include folders to read the project file `f` with: `dirs`, and the
/// ones its entry in a `compile_commands.json` gives.
fn unit_dirs(f: &Path, dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut d = dirs.to_vec();
    if let Ok(Some(flags)) =
        compile_commands::locate(f, None).map_or(Ok(None), |db| compile_commands::flags_for(&db, f))
    {
        d.extend(flags.include_dirs);
    }
    d
}

/// The allocations into a global through `cudaMallocPitch` in the
/// project's files outside one unit ([`OtherFiles`]), each file read as
/// its own unit: the widths asked for, or `None` when one of those files
/// may write the global otherwise, cannot be read, or there are more
/// files than are scanned. A file that declares its own `static` variable
/// of that name is not about this one.
struct OutsidePitches<'a> {
    files: &'a OtherFiles<'a>,
    dirs: &'a [PathBuf],
    options: &'a Options,
    answers: std::cell::RefCell<HashMap<String, Option<Vec<i64>>>>,
}

impl<'a> OutsidePitches<'a> {
    fn new(files: &'a OtherFiles<'a>, dirs: &'a [PathBuf], options: &'a Options) -> Self {
        OutsidePitches {
            files,
            dirs,
            options,
            answers: Default::default(),
        }
    }

    fn widths(&self, name: &str) -> Option<Vec<i64>> {
        if let Some(known) = self.answers.borrow().get(name) {
            return known.clone();
        }
        let found = self.read(name);
        self.answers
            .borrow_mut()
            .insert(name.to_string(), found.clone());
        found
    }

    fn read(&self, name: &str) -> Option<Vec<i64>> {
        let mut widths = Vec::new();
        for (f, text) in self.files.all_read()? {
            if !super::kernel_uses::macro_names(text, name) {
                continue;
            }
            let d = unit_dirs(f, self.dirs);
            let u = unit_cache::build(f, text, &d, self.files.sources, self.options);
            let t = crate::syntax::parse_unit(&u.text, u.prefix_len);
            let cx = crate::frontend::collect(&u.text, t.root_node(), self.options);
            let w = super::launch::global_pitch::pitch_writes(&u.text, t.root_node(), &cx, name)?;
            if !w.file_local {
                widths.extend(w.widths);
            }
        }
        Some(widths)
    }
}

/// The project's files outside one unit ([`OtherFiles`]) that name a host
/// function, each read as its own unit and parsed, for `host_data`: where
/// a helper the unit declares is defined, where the host function around
/// a launch is called. Each file is parsed once per analysis.
struct OtherHostUnits<'a> {
    files: &'a OtherFiles<'a>,
    dirs: &'a [PathBuf],
    options: &'a Options,
    parsed: std::cell::RefCell<HashMap<PathBuf, Arc<host_data::HostUnit>>>,
    /// The names asked about, with the fingerprint of the answer.
    asked: std::cell::RefCell<Vec<(String, Option<u64>)>>,
}

impl<'a> OtherHostUnits<'a> {
    fn new(files: &'a OtherFiles<'a>, dirs: &'a [PathBuf], options: &'a Options) -> Self {
        OtherHostUnits {
            files,
            dirs,
            options,
            parsed: Default::default(),
            asked: Default::default(),
        }
    }

    /// The other files whose text names `name`, with their texts; `None`
    /// when there are more files than are scanned or one cannot be read.
    fn files_naming(&self, name: &str) -> Option<Vec<(PathBuf, String)>> {
        Some(
            self.files
                .all_read()?
                .into_iter()
                .filter(|(_, t)| super::kernel_uses::macro_names(t, name))
                .map(|(f, t)| (f.clone(), t.to_string()))
                .collect(),
        )
    }

    /// What the answer about `name` was read from: the paths and texts of
    /// the files naming it (a changed file changes it).
    fn fingerprint(&self, name: &str) -> Option<u64> {
        self.files_naming(name).map(|f| super::hash_of(&f))
    }

    fn asked(&self) -> Vec<(String, Option<u64>)> {
        self.asked.borrow().clone()
    }
}

impl host_data::OtherUnits for OtherHostUnits<'_> {
    fn naming(&self, name: &str) -> Option<Vec<Arc<host_data::HostUnit>>> {
        let files = self.files_naming(name);
        self.asked
            .borrow_mut()
            .push((name.to_string(), files.as_ref().map(super::hash_of)));
        let mut out = Vec::new();
        for (f, text) in files? {
            if let Some(known) = self.parsed.borrow().get(&f) {
                out.push(known.clone());
                continue;
            }
            let d = unit_dirs(&f, self.dirs);
            let u = unit_cache::build(&f, &text, &d, self.files.sources, self.options);
            let tree = crate::syntax::parse_unit(&u.text, u.prefix_len);
            let parsed = Arc::new(host_data::HostUnit { text: u.text, tree });
            self.parsed.borrow_mut().insert(f, parsed.clone());
            out.push(parsed);
        }
        Some(out)
    }
}

fn source_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut items: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        items.sort();
        for p in items {
            let name = file_name(&p);
            if p.is_dir() {
                if !name.starts_with('.') && !matches!(name.as_str(), "target" | "node_modules") {
                    stack.push(p);
                }
            } else if matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("cu" | "cuh" | "cpp" | "cc" | "cxx" | "h" | "hpp")
            ) {
                out.push(compile_commands::normalize(&p));
                if out.len() >= MAX_SCANNED {
                    return out;
                }
            }
        }
    }
    out
}

/// Writes the launch assumption of each kernel into its report: its
/// launch site, or the sizes the user fixed (each naming where it was
/// written) with what the code's launch fixes whatever the sizes (the
/// instantiation, and the facts of the site the sizes agree with).
fn describe_launches(r: &mut FileReport, o: &Options) {
    for k in &mut r.kernels {
        if let Some(site) = o.launch_site(&k.name) {
            k.launch = Some(describe(site));
        } else if let Some(given) = o.user_launch_text(&k.name) {
            let mut s = given;
            if let Some(site) = o.launch_site_types(&k.name) {
                if !site.template_args.is_empty() {
                    s = format!("<{}>, {s}", site.template_args.join(", "));
                }
                if !site.requires.is_empty() {
                    s.push_str(&format!("; {}", site.requires.join(", ")));
                }
                if let Some(at) = site
                    .origin
                    .as_ref()
                    .filter(|_| !site.template_args.is_empty() || !site.requires.is_empty())
                {
                    s.push_str(&format!(" (launch at {at})"));
                }
            }
            k.launch = Some(s);
        }
    }
}

/// `block (16,16,1), grid symbolic, width == 512 (launch at host.cu:42)`.
pub(crate) fn describe(site: &LaunchOverride) -> String {
    let dims = |d: Option<[u32; 3]>| match d {
        Some([x, y, z]) => format!("({x},{y},{z})"),
        None => "symbolic".to_string(),
    };
    let mut s = format!(
        "block {}, grid {}",
        dims(site.block_dim),
        dims(site.grid_dim)
    );
    if !site.template_args.is_empty() {
        s = format!("<{}>, {s}", site.template_args.join(", "));
    }
    if !site.requires.is_empty() {
        s.push_str(&format!("; {}", site.requires.join(", ")));
    }
    match (&site.origin, site.covers.as_slice()) {
        (Some(o), []) => s.push_str(&format!(" (launch at {o})")),
        (Some(o), covered) => s.push_str(&format!(
            " (launch at {o}, which covers the same launch with more facts at {})",
            covered.join(", ")
        )),
        (None, _) => {}
    }
    if !site.not_understood.is_empty() {
        s.push_str(&format!(
            " (launches not understood: {}; sizes and arguments unknown)",
            site.not_understood.join("; ")
        ));
    }
    s
}

/// One report from the analyses under each launch: a kernel checked under
/// several launches takes the worst verdict; a race or divergence found
/// under several of them is one finding (the same accesses, or the same
/// barrier) naming each launch it holds under (`Finding::launches`, and the
/// message), its fix verified only if it was under each; a barrier is
/// redundant only if it is under every launch.
fn merge(mut reports: Vec<FileReport>, sites: &HashMap<String, Vec<LaunchOverride>>) -> FileReport {
    if reports.len() == 1 {
        return reports.pop().unwrap_or_default();
    }
    let multi: Vec<&String> = sites
        .iter()
        .filter(|(_, l)| l.len() > 1)
        .map(|(k, _)| k)
        .collect();
    let mut base = reports.remove(0);
    let per_launch = |f: &Finding| {
        matches!(
            f.kind,
            FindingKind::DataRace | FindingKind::BarrierDivergence | FindingKind::Unconfirmed
        )
    };
    let launch_of = |r: &FileReport, k: &str| {
        r.kernels
            .iter()
            .find(|x| x.name == k)
            .and_then(|x| x.launch.clone())
    };
    let first_launch: HashMap<String, Option<String>> = multi
        .iter()
        .map(|k| ((*k).clone(), launch_of(&base, k)))
        .collect();
    for f in &mut base.findings {
        if let Some(k) = f.kernel.clone().filter(|k| multi.contains(&k)) {
            if per_launch(f) {
                f.launches.extend(first_launch[&k].clone());
            }
        }
    }
    for (i, r) in reports.into_iter().enumerate() {
        let pass = i + 1;
        for k in multi.iter().filter(|k| sites[**k].len() > pass) {
            let launch = launch_of(&r, k);
            // Redundant only if redundant here too.
            base.findings.retain(|f| {
                f.kind != FindingKind::RedundantBarrier
                    || f.kernel.as_deref() != Some(k.as_str())
                    || r.findings.iter().any(|g| {
                        g.kind == FindingKind::RedundantBarrier
                            && g.kernel == f.kernel
                            && g.span == f.span
                    })
            });
            for f in r
                .findings
                .iter()
                .filter(|f| f.kernel.as_deref() == Some(k.as_str()))
            {
                if per_launch(f) {
                    match base.findings.iter_mut().find(|g| same_cause(g, f)) {
                        Some(g) => {
                            g.launches.extend(launch.clone());
                            confirm_fixes(g, f);
                        }
                        None => {
                            let mut f = f.clone();
                            f.launches.extend(launch.clone());
                            base.findings.push(f);
                        }
                    }
                } else if f.kind != FindingKind::RedundantBarrier
                    && !base
                        .findings
                        .iter()
                        .any(|g| g.kind == f.kind && g.span == f.span && g.kernel == f.kernel)
                {
                    base.findings.push(f.clone());
                }
            }
            if let (Some(b), Some(n)) = (
                base.kernels.iter_mut().find(|x| &x.name == *k),
                r.kernels.iter().find(|x| &x.name == *k),
            ) {
                if rank(n.status) > rank(b.status) {
                    b.status = n.status;
                    b.launch = n.launch.clone();
                } else if let (Some(bl), Some(nl)) = (&b.launch, &n.launch) {
                    if !bl.contains(nl.as_str()) {
                        b.launch = Some(format!("{bl}; also {nl}"));
                    }
                }
                b.millis += n.millis;
                b.queries += n.queries;
                b.queries_reused += n.queries_reused;
            }
        }
        base.stats += r.stats;
    }
    for f in &mut base.findings {
        if !f.launches.is_empty() {
            let under = f.launches.join("; also under ");
            f.message = format!("{} [under {under}]", f.message);
            f.notes.push(format!("under the launch: {under}"));
        }
    }
    base
}

/// The same race (kind, kernel, place and every racing pair) or the same
/// divergent barrier, found under another launch.
fn same_cause(a: &Finding, b: &Finding) -> bool {
    let spans = |f: &Finding| -> Vec<(Span, Span)> {
        f.pairs.iter().map(|p| (p.first, p.second)).collect()
    };
    a.kind == b.kind && a.kernel == b.kernel && a.span == b.span && spans(a) == spans(b)
}

/// `kept`'s fixes stay verified only where `other` (the same finding under
/// another launch) verified the same edit: a fix is checked under every
/// launch its finding holds under. An assumption (a precondition fix) the
/// other launch did not verify is dropped, and so is a race condition the
/// other launch does not share: each was proved under one launch only.
fn confirm_fixes(kept: &mut Finding, other: &Finding) {
    if kept.race_condition != other.race_condition {
        kept.race_condition = None;
    }
    confirm_fix_list(&mut kept.fixes, &other.fixes);
}

/// [`confirm_fixes`] on the fixes alone.
fn confirm_fix_list(kept: &mut Vec<Fix>, other: &[Fix]) {
    let confirmed = |x: &Fix| other.iter().any(|y| y.edits == x.edits && y.verified);
    kept.retain(|x| !x.precondition || confirmed(x));
    for x in kept.iter_mut() {
        let confirmed = other.iter().any(|y| y.edits == x.edits && y.verified);
        if x.verified && !confirmed {
            x.verified = false;
            x.title.push_str(" (checked under one launch only)");
        }
    }
}

fn rank(s: KernelStatus) -> u8 {
    match s {
        KernelStatus::Verified => 0,
        KernelStatus::Unknown => 1,
        KernelStatus::NotVerified => 2,
        KernelStatus::AssertionFailed => 3,
        KernelStatus::Racy => 4,
        KernelStatus::Divergent => 5,
    }
}

/// Moves the unit's report (the file's own kernels, see `analyze_unit`) to
/// the analysed file: findings in a header's code are shown at the
/// `#include` that brought it in, naming the header's line.
fn to_file(mut r: FileReport, unit: &unit::Unit, dir: &Path) -> FileReport {
    let in_header = |s: &Span| (s.start.offset as usize) < unit.prefix_len;
    // The report has the file's own kernels only (`analyze_unit` leaves
    // the headers' kernels to the headers' own analyses).
    for k in &mut r.kernels {
        unit.to_file(&mut k.span);
    }
    let mut header_syntax: Vec<(PathBuf, u32, usize)> = Vec::new();
    let mut out = Vec::new();
    for mut f in r.findings {
        if f.kind == FindingKind::SyntaxError && in_header(&f.span) {
            // The header's own analysis reports them; here, one note each.
            if let Some(p) = unit.part_at(f.span.start.offset as usize) {
                let line = f.span.start.line.saturating_sub(p.start_line) + 1;
                match header_syntax.iter_mut().find(|(h, _, _)| *h == p.path) {
                    Some(e) => e.2 += 1,
                    None => header_syntax.push((p.path.clone(), line, 1)),
                }
            }
            continue;
        }
        f.message = file_lines(&f.message, unit, dir);
        if let Some(h) = &mut f.headline {
            *h = file_lines(h, unit, dir);
        }
        for n in &mut f.notes {
            *n = file_lines(n, unit, dir);
        }
        if let Some((path, line)) = unit.to_file(&mut f.span) {
            f.message = format!("{} (in `{}` line {line})", f.message, shown(&path, dir));
        }
        for rel in &mut f.related {
            rel.message = file_lines(&rel.message, unit, dir);
            if let Some((path, line)) = unit.to_file(&mut rel.span) {
                rel.message = format!("{} (in `{}` line {line})", rel.message, shown(&path, dir));
            }
        }
        for p in &mut f.pairs {
            unit.to_file(&mut p.first);
            unit.to_file(&mut p.second);
        }
        // A fix that would edit a header is not offered on this file.
        f.fixes
            .retain(|x| x.edits.iter().all(|e| !in_header(&e.span)));
        for e in f.fixes.iter_mut().flat_map(|x| &mut x.edits) {
            unit.to_file(&mut e.span);
        }
        out.push(f);
    }
    for (path, line, count) in header_syntax {
        let via = unit
            .parts
            .iter()
            .find(|p| p.path == path)
            .map(|p| p.via)
            .unwrap_or_default();
        let mut f = Finding::new(
            FindingKind::Include,
            None,
            via,
            format!(
                "`{}` has {count} syntax error(s) (first at line {line}); its definitions may be incomplete",
                shown(&path, dir)
            ),
        );
        f.severity = Severity::Information;
        out.push(f);
    }
    r.findings = out;
    r
}

/// Messages name lines (`(line 58)`, `(lines 58-61)`) of the text that
/// was analysed, the unit: each becomes a line of the file, or `` `header`
/// line N``; a range whose ends are not both lines of the file becomes
/// `line A to line B`, each end as a single line would be.
fn file_lines(message: &str, unit: &unit::Unit, dir: &Path) -> String {
    if unit.prefix_lines == 0 {
        return message.to_string();
    }
    // Line `n` (1-based) of the unit as the file names it, and whether it
    // is a line of the file itself.
    let line_of = |n: u32| -> (String, bool) {
        let line0 = n - 1;
        if line0 >= unit.prefix_lines {
            ((line0 - unit.prefix_lines + 1).to_string(), true)
        } else if let Some(p) = unit.parts.iter().find(|p| {
            unit.text[..p.end].matches('\n').count() as u32 > line0 && p.start_line <= line0
        }) {
            (
                format!(
                    "`{}` line {}",
                    shown(&p.path, dir),
                    line0 - p.start_line + 1
                ),
                false,
            )
        } else {
            (n.to_string(), true)
        }
    };
    let number = |s: &str| -> Option<(u32, usize)> {
        let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
        let n = digits.parse::<u32>().ok().filter(|n| *n >= 1)?;
        Some((n, digits.len()))
    };
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find("line") {
        let word_start = i == 0 || !rest[..i].ends_with(|c: char| c.is_alphanumeric());
        let after_word = &rest[i + "line".len()..];
        let spaced = match after_word {
            a if a.starts_with("s ") => Some((true, &a[2..])),
            a if a.starts_with(' ') => Some((false, &a[1..])),
            _ => None,
        };
        let first = spaced
            .filter(|_| word_start)
            .and_then(|(plural, after_space)| Some((plural, after_space, number(after_space)?)));
        let Some((plural, after_space, (a, a_len))) = first else {
            out.push_str(&rest[..i + "line".len()]);
            rest = after_word;
            continue;
        };
        out.push_str(&rest[..i]);
        let after_a = &after_space[a_len..];
        let range = plural
            .then(|| after_a.strip_prefix('-').and_then(number))
            .flatten();
        match range {
            Some((b, b_len)) => {
                let ((la, fa), (lb, fb)) = (line_of(a), line_of(b));
                if fa && fb {
                    out.push_str(&format!("lines {la}-{lb}"));
                } else {
                    let word = |l: String, f: bool| if f { format!("line {l}") } else { l };
                    out.push_str(&format!("{} to {}", word(la, fa), word(lb, fb)));
                }
                rest = &after_a[1 + b_len..];
            }
            None => {
                let (l, f) = line_of(a);
                let word = if plural { "lines" } else { "line" };
                out.push_str(&if f { format!("{word} {l}") } else { l });
                rest = after_a;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A header's path as shown next to the file at `dir`: relative when it
/// shares a folder with it (`../include/x.cuh`), else as found.
fn shown(path: &Path, dir: &Path) -> String {
    let p: Vec<_> = path.components().collect();
    let d: Vec<_> = dir.components().collect();
    let common = p.iter().zip(&d).take_while(|(a, b)| a == b).count();
    if common <= 1 || d.len() - common > 3 {
        return path.display().to_string();
    }
    let mut out = PathBuf::new();
    for _ in common..d.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    out.display().to_string()
}

/// What the project model could not read, for the headers on the
/// preprocessor's taken path only (an include inside `#if defined(WIN32)`
/// on a device pass is not one the build reads): one warning per missing
/// local header, and one note for all the system headers outside the
/// built-in model, at the first `#include` they come through (the others
/// as related locations).
fn include_findings(unit: &unit::Unit, dir: &Path) -> Vec<Finding> {
    let mut out = Vec::new();
    for m in unit.missing.iter().filter(|m| m.on_path) {
        let searched: Vec<String> = m
            .searched
            .iter()
            .map(|d| format!("`{}`", d.display()))
            .collect();
        let from = m
            .includer
            .as_ref()
            .map(|h| format!(" (included by `{}`)", shown(h, dir)))
            .unwrap_or_default();
        out.push(Finding::new(
            FindingKind::Include,
            None,
            m.via,
            format!(
                "header `{}`{from} not found; searched {}. Add its folder with `-I DIR`, `include-dirs` in syncscope.toml or a compile_commands.json",
                m.name,
                if searched.is_empty() { "no folder".to_string() } else { searched.join(", ") }
            ),
        ));
    }
    let unknown: Vec<&unit::UnknownSystem> =
        unit.unknown_system.iter().filter(|u| u.on_path).collect();
    let Some(first) = unknown.first() else {
        return out;
    };
    // The headers by the `#include` line of the file they come through.
    let mut by_line: Vec<(Span, Vec<String>)> = Vec::new();
    for u in &unknown {
        let name = match &u.includer {
            Some(h) => format!("`<{}>` (in `{}`)", u.name, shown(h, dir)),
            None => format!("`<{}>`", u.name),
        };
        match by_line.iter_mut().find(|(via, _)| *via == u.via) {
            Some((_, names)) => names.push(name),
            None => by_line.push((u.via, vec![name])),
        }
    }
    let all: Vec<&str> = by_line
        .iter()
        .flat_map(|(_, names)| names.iter().map(String::as_str))
        .collect();
    let (what, verb, their) = if all.len() == 1 {
        ("system header", "is", "its")
    } else {
        ("system headers", "are", "their")
    };
    let mut f = Finding::new(
        FindingKind::Include,
        None,
        first.via,
        format!(
            "{what} {} {verb} not in the built-in model: skipped ({their} names are unknown values)",
            all.join(", ")
        ),
    );
    f.severity = Severity::Information;
    if all.len() > 1 {
        f.headline = Some(format!(
            "{} system headers are not in the built-in model",
            all.len()
        ));
        f.notes.push(format!(
            "skipped (their names are unknown values): {}",
            all.join(", ")
        ));
    }
    f.related = by_line
        .iter()
        .skip(1)
        .map(|(via, names)| Related {
            span: *via,
            message: format!(
                "{} come{} in here",
                names.join(", "),
                if names.len() == 1 { "s" } else { "" }
            ),
        })
        .collect();
    out.push(f);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::MemoryCache;
    use crate::project::Overlay;

    /// An empty folder of its own for a test's project files (named by
    /// the process and thread, so parallel tests never share one), in the
    /// form the analysis normalises paths to.
    fn fresh_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        compile_commands::normalize(&dir)
    }

    /// The report of `text` analysed as the file `path` on disk, with the
    /// default options and a cache of its own.
    fn report_on_disk(path: &Path, text: &str) -> FileReport {
        analyze(
            path,
            text,
            None,
            &Options::default(),
            &SearchPaths::default(),
            &crate::project::Disk,
            &MemoryCache::default(),
            None,
            None,
        )
        .report
    }

    const KERNEL: &str = "__global__ void scale(float *a, int n) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) a[i] *= 2.0f;\n}\n";
    const HOST: &str = "#include \"sizes.h\"\nvoid run(float *a, int n) {\n    scale<<<n / BLOCK, BLOCK>>>(a, n);\n}\n";

    /// One step of an editing session: what changes before the analysis of
    /// `kern.cu`, how many other files that analysis parses for launch
    /// sites, and the launch it then reports.
    struct Step {
        what: &'static str,
        /// (file, text) written to disk.
        disk: &'static [(&'static str, &'static str)],
        /// (file, Some(text)): an open buffer; `None`: the buffer is closed.
        buffers: &'static [(&'static str, Option<&'static str>)],
        /// The text of the analysed file (its own buffer).
        kernel: &'static str,
        parsed: usize,
        launch: &'static str,
    }

    const STEPS: &[Step] = &[
        Step {
            what: "first analysis: host.cu is parsed",
            disk: &[],
            buffers: &[],
            kernel: KERNEL,
            parsed: 1,
            launch: "block (128,1,1)",
        },
        Step {
            what: "nothing changed: nothing parsed",
            disk: &[],
            buffers: &[],
            kernel: KERNEL,
            parsed: 0,
            launch: "block (128,1,1)",
        },
        Step {
            what: "an edit of the kernel's body: its launch sites are the same",
            disk: &[],
            buffers: &[],
            kernel: "__global__ void scale(float *a, int n) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) a[i] *= 3.0f;\n}\n",
            parsed: 0,
            launch: "block (128,1,1)",
        },
        Step {
            what: "host.cu's open buffer launches with 64 threads: seen",
            disk: &[],
            buffers: &[(
                "host.cu",
                Some("void run(float *a, int n) {\n    scale<<<n / 64, 64>>>(a, n);\n}\n"),
            )],
            kernel: KERNEL,
            parsed: 1,
            launch: "block (64,1,1)",
        },
        Step {
            what: "the buffer unchanged: nothing parsed, its launch still seen",
            disk: &[],
            buffers: &[],
            kernel: KERNEL,
            parsed: 0,
            launch: "block (64,1,1)",
        },
        Step {
            what: "the buffer closed unsaved: the disk's launch again, already known",
            disk: &[],
            buffers: &[("host.cu", None)],
            kernel: KERNEL,
            parsed: 0,
            launch: "block (128,1,1)",
        },
        Step {
            what: "a header host.cu includes changes on disk",
            disk: &[("sizes.h", "#define BLOCK 256\n")],
            buffers: &[],
            kernel: KERNEL,
            parsed: 1,
            launch: "block (256,1,1)",
        },
        Step {
            what: "a file that launches another kernel is added: filtered unparsed",
            disk: &[(
                "other.cu",
                "__global__ void other(int *p) { p[threadIdx.x] = 0; }\nvoid go(int *p) { other<<<1, 32>>>(p); }\n",
            )],
            buffers: &[],
            kernel: KERNEL,
            parsed: 0,
            launch: "block (256,1,1)",
        },
        Step {
            what: "the kernel's parameters change: host.cu is read again for them",
            disk: &[],
            buffers: &[],
            kernel: "__global__ void scale(float *a, int n, int m) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) a[i] *= 2.0f;\n}\n",
            parsed: 1,
            launch: "block (256,1,1)",
        },
    ];

    #[test]
    fn the_site_index_reparses_exactly_the_files_whose_launch_sites_may_have_changed() {
        let dir = fresh_dir("syncscope-site-index");
        std::fs::write(dir.join("kern.cu"), KERNEL).unwrap();
        std::fs::write(dir.join("host.cu"), HOST).unwrap();
        std::fs::write(dir.join("sizes.h"), "#define BLOCK 128\n").unwrap();
        let mut buffers: HashMap<PathBuf, String> = HashMap::new();
        let cache = MemoryCache::default();
        let kern = dir.join("kern.cu");
        for step in STEPS {
            for (name, text) in step.disk {
                std::fs::write(dir.join(name), text).unwrap();
            }
            for (name, text) in step.buffers {
                match text {
                    Some(t) => buffers.insert(dir.join(name), t.to_string()),
                    None => buffers.remove(&dir.join(name)),
                };
            }
            let a = analyze(
                &kern,
                step.kernel,
                None,
                &Options::default(),
                &SearchPaths::default(),
                &Overlay { buffers: &buffers },
                &cache,
                None,
                None,
            );
            let launch = a
                .report
                .kernels
                .iter()
                .find(|k| k.name == "scale")
                .and_then(|k| k.launch.clone())
                .unwrap_or_default();
            assert!(
                launch.starts_with(step.launch) && launch.contains("host.cu:"),
                "{}: launch {launch:?}, expected {:?}",
                step.what,
                step.launch
            );
            assert_eq!(a.launch_files_parsed, step.parsed, "{}", step.what);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Three files that include the same header, each launching the
    /// others' kernels (so each analysis also reads the other two units for
    /// launch sites): every unit is built once and the header's part of
    /// the units is parsed once in the whole run, and each kernel is still
    /// checked under its launches.
    #[test]
    fn a_header_included_by_three_units_is_parsed_once() {
        let dir = fresh_dir("syncscope-shared-header");
        std::fs::write(
            dir.join("shared_once.h"),
            "#pragma once\n#define TILE_SHARED_ONCE 64\n\
             __global__ void k_a(float *p);\n__global__ void k_b(float *p);\n__global__ void k_c(float *p);\n\
             __device__ int lane_shared_once(int t) { return t % TILE_SHARED_ONCE; }\n",
        )
        .unwrap();
        let file = |me: &str, racy: bool| {
            let index = if racy {
                "lane_shared_once(threadIdx.x)"
            } else {
                "threadIdx.x"
            };
            format!(
                "#include \"shared_once.h\"\n\
                 __global__ void k_{me}(float *p) {{ p[{index}] = (float)threadIdx.x; }}\n\
                 void run_{me}(float *p) {{ k_a<<<1, 128>>>(p); k_b<<<1, 128>>>(p); k_c<<<1, 128>>>(p); }}\n"
            )
        };
        let files = [
            ("a", file("a", true)),
            ("b", file("b", false)),
            ("c", file("c", false)),
        ];
        for (me, text) in &files {
            std::fs::write(dir.join(format!("{me}.cu")), text).unwrap();
        }
        let options = Options::default();
        let cache = MemoryCache::default();
        let mut statuses = Vec::new();
        for (me, text) in &files {
            let a = analyze(
                &dir.join(format!("{me}.cu")),
                text,
                None,
                &options,
                &SearchPaths::default(),
                &crate::project::Disk,
                &cache,
                None,
                None,
            );
            let k = a
                .report
                .kernels
                .iter()
                .find(|k| k.name == format!("k_{me}"))
                .unwrap();
            assert!(
                k.launch
                    .as_deref()
                    .unwrap_or("")
                    .starts_with("block (128,1,1)"),
                "{k:?}"
            );
            statuses.push(k.status);
        }
        assert_eq!(
            statuses,
            [
                KernelStatus::Racy,
                KernelStatus::Verified,
                KernelStatus::Verified
            ]
        );
        for (me, text) in &files {
            let path = dir.join(format!("{me}.cu"));
            assert_eq!(
                unit_cache::fresh_builds(&path, text, &[], &options),
                1,
                "{me}.cu's unit is built once, read by all three analyses"
            );
        }
        let u = unit_cache::build(
            &dir.join("a.cu"),
            &files[0].1,
            &[],
            &crate::project::Disk,
            &options,
        );
        assert!(u.prefix_len > 0 && u.text[..u.prefix_len].contains("lane_shared_once"));
        assert_eq!(
            crate::syntax::prefix_parses(&u.text[..u.prefix_len]),
            1,
            "the header's part of the three units is parsed once"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A kernel launched the same way under two `case`s of a host `switch`
    /// the kernel never sees is verified twice (one pass per distinct
    /// launch: the template arguments differ) under the same facts, so the
    /// second pass asks no query of its own: the facts naming only the
    /// switch's variable are left out of what is verified (and kept in the
    /// launch's description).
    #[test]
    fn launches_differing_only_in_a_host_switch_the_kernel_never_sees_share_their_queries() {
        let dir = fresh_dir("syncscope-isolated-facts");
        let text = "template <typename T>\n__global__ void scale(T *out, const T *in, int width) {\n    __shared__ T tile[64];\n    int t = threadIdx.x;\n    int row = blockIdx.x * width;\n    tile[t] = in[row + t];\n    __syncthreads();\n    out[row + t] = tile[63 - t] * (T)2;\n}\nvoid run(float *f, const float *g, double *d, const double *e, int mode, int width) {\n    if (width < 64) return;\n    switch (mode) {\n    case 0: scale<float><<<16, 64>>>(f, g, width); break;\n    case 2: scale<double><<<16, 64>>>(d, e, width); break;\n    }\n}\n";
        let file = dir.join("switch.cu");
        std::fs::write(&file, text).unwrap();
        let buffers = HashMap::new();
        let a = analyze(
            &file,
            text,
            None,
            &Options::default(),
            &SearchPaths::default(),
            &Overlay { buffers: &buffers },
            &MemoryCache::default(),
            None,
            None,
        );
        let k = a
            .report
            .kernels
            .iter()
            .find(|k| k.name == "scale")
            .expect("the kernel's report");
        assert_eq!(k.status, KernelStatus::Verified, "{:#?}", a.report.findings);
        assert!(k.queries > 0, "{k:#?}");
        // Both passes' queries are counted; the second pass's all reused.
        assert_eq!(k.queries_reused * 2, k.queries, "{k:#?}");
        let described = k.launch.as_deref().unwrap_or_default();
        assert!(described.contains("mode"), "{described}");
    }

    /// A file's passes after the first verify only the kernels launched
    /// that many ways (the others are the first pass's models, whose
    /// results stand), and a kernel racy under its first launch stops its
    /// race search under the next at the first race there: the merged
    /// verdict is racy whatever the rest answer, and a note says the
    /// search stopped.
    #[test]
    fn later_launch_passes_verify_only_the_kernels_launched_again() {
        let dir = fresh_dir("syncscope-later-passes");
        let text = "template <typename T>\n__global__ void shift(T *out) {\n    __shared__ T tile[256];\n    int t = threadIdx.x;\n    tile[t] = out[t];\n    out[t] = tile[(t + 1) % 256] + tile[(t + 2) % 256];\n    tile[(t + 3) % 256] = out[t];\n}\n__global__ void once(float *a) {\n    __shared__ float s[64];\n    s[threadIdx.x] = a[threadIdx.x];\n    a[threadIdx.x] = s[63 - threadIdx.x];\n}\nvoid run(float *f, double *d, float *a) {\n    shift<float><<<4, 256>>>(f);\n    shift<double><<<4, 256>>>(d);\n    once<<<1, 64>>>(a);\n}\n";
        let report = report_on_disk(&dir.join("passes.cu"), text);
        let status = |name: &str| {
            report
                .kernels
                .iter()
                .find(|k| k.name == name)
                .map(|k| k.status)
        };
        assert_eq!(
            status("shift"),
            Some(KernelStatus::Racy),
            "{:#?}",
            report.findings
        );
        assert_eq!(
            status("once"),
            Some(KernelStatus::Racy),
            "{:#?}",
            report.findings
        );
        assert_eq!(
            report.stats.kernels_analysed, 3,
            "shift twice, once once: {:#?}",
            report.stats
        );
        let stopped = |name: &str| {
            report.findings.iter().any(|f| {
                f.kind == FindingKind::Note
                    && f.kernel.as_deref() == Some(name)
                    && f.message.contains("races under an earlier launch")
            })
        };
        assert!(stopped("shift"), "{:#?}", report.findings);
        assert!(!stopped("once"), "{:#?}", report.findings);
        // With fixes, each launch's search is whole: a fix is verified
        // under every launch its race is found under.
        let with_fixes = analyze(
            &dir.join("passes.cu"),
            text,
            None,
            &Options {
                compute_fixes: true,
                ..Options::default()
            },
            &SearchPaths::default(),
            &crate::project::Disk,
            &MemoryCache::default(),
            None,
            None,
        )
        .report;
        assert!(
            !with_fixes
                .findings
                .iter()
                .any(|f| f.message.contains("races under an earlier launch")),
            "{:#?}",
            with_fixes.findings
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A kernel defined in an included header is verified by the header's
    /// own analysis, not again by every file that includes it: the file's
    /// analysis reports and verifies its own kernels only, and the
    /// header's reports the header's kernel (racy here).
    #[test]
    fn kernels_of_included_headers_are_left_to_the_headers_analysis() {
        let dir = fresh_dir("syncscope-header-kernels");
        let header = "#pragma once\n__global__ void shifted(float *a) {\n    __shared__ float s[64];\n    s[threadIdx.x] = a[threadIdx.x];\n    a[threadIdx.x] = s[(threadIdx.x + 1) % 64];\n}\n";
        let file = "#include \"shifted.cuh\"\n__global__ void own(float *a) {\n    a[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;\n}\n";
        std::fs::write(dir.join("shifted.cuh"), header).unwrap();
        std::fs::write(dir.join("own.cu"), file).unwrap();
        let run = |name: &str, text: &str| report_on_disk(&dir.join(name), text);
        let own = run("own.cu", file);
        let names: Vec<&str> = own.kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["own"], "{:#?}", own.findings);
        assert_eq!(own.stats.kernels_analysed, 1, "{:#?}", own.stats);
        assert_eq!(own.kernels[0].status, KernelStatus::Verified);
        let in_header = run("shifted.cuh", header);
        let k = in_header
            .kernels
            .iter()
            .find(|k| k.name == "shifted")
            .expect("the header's kernel");
        assert_eq!(k.status, KernelStatus::Racy, "{:#?}", in_header.findings);
    }

    /// A kernel no launch bounds is checked for a launch of any size, except
    /// in the dimensions it never reads, which are 1; its launch note says
    /// which (a 1-D reduction launched with 16 x 16 blocks races between
    /// threads that differ only in `threadIdx.y`, and racecheck saw it).
    #[test]
    fn the_launch_note_names_the_dimensions_taken_as_one() {
        let dir = fresh_dir("syncscope-one-dimensional");
        let file = "__global__ void flat(float *a) {\n    __shared__ float s[1024];\n    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n    s[threadIdx.x] = a[i];\n    __syncthreads();\n    a[i] = s[0];\n}\n__global__ void tiled(float *a) {\n    a[(blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x] = 0.0f;\n}\n";
        std::fs::write(dir.join("k.cu"), file).unwrap();
        let report = report_on_disk(&dir.join("k.cu"), file);
        let note = |name: &str| {
            let k = report.kernels.iter().find(|k| k.name == name).expect(name);
            assert_eq!(k.status, KernelStatus::Verified, "{:#?}", report.findings);
            k.launch_note.clone().unwrap_or_default()
        };
        assert!(
            note("flat").ends_with("checked for a launch of any size with any arguments, except that blockDim.y, blockDim.z, gridDim.y and gridDim.z are 1 (dimensions the kernel never reads; --block-dim/--grid-dim give others)"),
            "{}",
            note("flat")
        );
        assert!(
            note("tiled").ends_with("checked for a launch of any size with any arguments, except that blockDim.z and gridDim.z are 1 (dimensions the kernel never reads; --block-dim/--grid-dim give others)"),
            "{}",
            note("tiled")
        );
    }

    /// A message's line range (`(lines 5-6)` of several racing pairs) is
    /// in the file's lines, like its single lines, when a header's
    /// definitions come before the kernel in the analysed text.
    #[test]
    fn line_ranges_of_messages_are_the_files_lines_after_a_header() {
        let dir = fresh_dir("syncscope-line-ranges");
        std::fs::write(
            dir.join("helpers.h"),
            "#pragma once\n__device__ int twice(int v) {\n    return 2 * v;\n}\n__device__ int thrice(int v) {\n    return 3 * v;\n}\n",
        )
        .unwrap();
        let kernel = "#include \"helpers.h\"\n__global__ void k(int *a) {\n    int t = threadIdx.x;\n    a[twice(t)] = a[t + 1];\n    a[thrice(t)] = a[t + 2];\n}\n";
        let report = report_on_disk(&dir.join("k.cu"), kernel);
        let grouped: Vec<&Finding> = report
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::DataRace && f.message.contains(" pairs of accesses"))
            .collect();
        assert!(!grouped.is_empty(), "{:#?}", report.findings);
        for f in grouped {
            let headline = f.headline.as_deref().unwrap_or_default();
            assert!(headline.contains("(lines 4-5)"), "{headline}");
            // Accesses on lines 4 and 5 of the file (1-based).
            let range = f.message.split("(lines ").nth(1).expect("a range");
            let (a, rest) = range.split_once('-').expect("two ends");
            let b: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let (a, b): (u32, u32) = (a.parse().unwrap(), b.parse().unwrap());
            assert!(
                (4..=5).contains(&a) && (4..=5).contains(&b),
                "{}",
                f.message
            );
        }
    }

    /// A range whose first access is inlined from a header names that end
    /// as the header's line and the other as the file's.
    #[test]
    fn a_line_range_from_a_header_names_the_headers_line() {
        let dir = fresh_dir("syncscope-header-range");
        std::fs::write(
            dir.join("put.h"),
            "#pragma once\n__device__ void put(int *a, int i) {\n    a[i] = 1;\n}\n",
        )
        .unwrap();
        let kernel = "#include \"put.h\"\n__global__ void k(int *a) {\n    int t = threadIdx.x;\n    put(a, 2 * t);\n    a[t + 1] = 2;\n    a[t + 3] = 3;\n}\n";
        let report = report_on_disk(&dir.join("k.cu"), kernel);
        let headlines: Vec<&str> = report
            .findings
            .iter()
            .filter_map(|f| f.headline.as_deref())
            .filter(|h| h.contains("racing pairs"))
            .collect();
        assert_eq!(
            headlines,
            ["data race on `a`: 2 racing pairs, no barrier between (`put.h` line 3 to line 6)"],
            "{:#?}",
            report.findings
        );
    }

    /// The quick-fixes computed on request from an analysis's `FixBasis`
    /// are the ones `check --fixes` finds: under the host code's launch (the
    /// barrier inside `if (t < width)` is divergent under any other), for a
    /// file analysed after a header (its edits in the file's positions).
    #[test]
    fn fixes_on_request_are_the_analysis_fixes_under_its_launches() {
        let dir = fresh_dir("syncscope-fix-basis");
        let kernel = "#include \"mirror.h\"\n__global__ void mirror(float *row, int width) {\n    __shared__ float s[256];\n    int t = threadIdx.x;\n    if (t < width) {\n        s[t] = row[t];\n        row[t] = s[mirrored(t, width)];\n    }\n}\n";
        std::fs::write(
            dir.join("mirror.h"),
            "#pragma once\n__device__ int mirrored(int t, int width) {\n    return width - 1 - t;\n}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("host.cu"),
            "void run(float *row, int width) {\n    if (width < 1 || width > 256) return;\n    mirror<<<1, width>>>(row, width);\n}\n",
        )
        .unwrap();
        let file = dir.join("mirror.cu");
        std::fs::write(&file, kernel).unwrap();
        let buffers = HashMap::new();
        let run = |compute_fixes: bool| {
            analyze(
                &file,
                kernel,
                None,
                &Options {
                    compute_fixes,
                    ..Options::default()
                },
                &SearchPaths::default(),
                &Overlay { buffers: &buffers },
                &MemoryCache::default(),
                None,
                None,
            )
        };
        let with_fixes = run(true);
        let races: Vec<&Finding> = with_fixes
            .report
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::DataRace)
            .collect();
        assert!(!races.is_empty(), "{:#?}", with_fixes.report.findings);
        assert!(
            races.iter().all(|f| f.fixes.iter().any(|x| x.verified)),
            "{races:#?}"
        );
        let plain = run(false);
        let asked = quick_fixes(
            &plain.fix_basis,
            &MemoryCache::default(),
            None,
            &plain.report.findings,
        );
        for (f, fixes) in plain.report.findings.iter().zip(&asked) {
            let expected = with_fixes
                .report
                .findings
                .iter()
                .find(|g| g.kind == f.kind && g.span == f.span && g.pairs == f.pairs)
                .map(|g| g.fixes.clone())
                .unwrap_or_default();
            assert_eq!(fixes, &expected, "{f:#?}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
