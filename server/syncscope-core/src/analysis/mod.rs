//! The one driver of an analysis: source text (and its tree) → syntax
//! errors → kernel models (`frontend`) → verification (`verify`) → the
//! file's report, with whole-kernel reuse through the cache and, on request,
//! verified quick-fixes (`fixes`).
//!
//! Architecture Invariant: this is the only module that runs the pipeline's
//! stages in sequence; the stages below it never call a later one, and
//! nothing below it parses or lowers text again.

pub mod assumption;
pub(crate) mod driver_launches;
mod driver_pairing;
pub(crate) mod fixes;
pub(crate) mod graph_nodes;
mod host_data;
mod host_helpers;
mod input_conditions;
pub(crate) mod kernel_uses;
pub(crate) mod launch;
mod models;
mod names;
mod param_conditions;
pub(crate) mod params;
mod power_helpers;
pub mod project;
mod source_replay;

use crate::cache::{KernelResult, QueryCache};
use crate::model::Kernel;
use crate::options::Options;
use crate::report::*;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub(crate) fn analyze_file(
    text: &str,
    tree: &tree_sitter::Tree,
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
    progress: Option<&Progress>,
) -> FileReport {
    analyze_unit(text, tree, 0, options, cache, cancel, progress)
}

/// [`analyze_file`] on a translation unit whose first `own_from` bytes are
/// its headers: the kernels defined there are neither verified nor
/// reported, since each header's own analysis verifies them. A header
/// included by many files would otherwise be verified once per includer.
pub(crate) fn analyze_unit(
    text: &str,
    tree: &tree_sitter::Tree,
    own_from: usize,
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
    progress: Option<&Progress>,
) -> FileReport {
    crate::parallel::on_analysis_stack("syncscope-analysis", || {
        analyze_file_here(text, tree, own_from, options, cache, cancel, progress)
    })
    .unwrap_or_else(|| FileReport {
        findings: vec![Finding::new(
            FindingKind::Unknown,
            None,
            Span::default(),
            "unknown: internal error while analysing this file".into(),
        )],
        ..Default::default()
    })
}

fn analyze_file_here(
    text: &str,
    tree: &tree_sitter::Tree,
    own_from: usize,
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
    progress: Option<&Progress>,
) -> FileReport {
    let directives = crate::directives::parse_file(text);
    let options = &crate::options::apply_directives(&directives, options);
    // The conditionals decided as the compiler decides them, so that the
    // parse sees only the branches it reads (an `#if` inside a parameter
    // list, an `extern "C" {` under `#ifdef __cplusplus`); every position
    // stays where it was.
    let resolved =
        crate::frontend::resolve_conditionals(text, &crate::frontend::pass_defines(options));
    let with_skipped;
    let options = if resolved.skipped.is_empty() {
        options
    } else {
        let mut o = options.clone();
        o.skipped_branches.extend(resolved.skipped);
        with_skipped = o;
        &with_skipped
    };
    let reparsed;
    let (text, tree) = match &resolved.text {
        std::borrow::Cow::Owned(t) => {
            reparsed = crate::syntax::parse(t, None);
            (t.as_str(), &reparsed)
        }
        std::borrow::Cow::Borrowed(_) => (text, tree),
    };
    let mut report = FileReport {
        findings: crate::syntax::syntax_errors(tree, text),
        ..Default::default()
    };
    report.findings.extend(directive_notes(text, &directives));
    let options_hash = hash_of(&format!("{options:?}"));
    let kernels: Vec<Kernel> = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        models::lower(text, tree, options, options_hash, cache)
    })) {
        Ok(k) => k,
        Err(p) => {
            report.findings.push(Finding::new(
                FindingKind::NotVerified,
                None,
                Span::default(),
                format!(
                    "not verified: internal error in the front end ({})",
                    crate::parallel::panic_message(p)
                ),
            ));
            return report;
        }
    };
    // The kernels of the unit's headers are their own analyses' (see
    // `analyze_unit`).
    // A later launch pass verifies only the kernels it has a launch for
    // (`Options::only_kernels`).
    let kernels: Vec<Kernel> = kernels
        .into_iter()
        .filter(|k| k.def_span.start.offset as usize >= own_from)
        .filter(|k| {
            options
                .only_kernels
                .as_ref()
                .is_none_or(|o| o.contains(&k.name))
        })
        .collect();
    // Kernels whose model, text and options are unchanged reuse their last
    // complete result; only the others are verified.
    let keys: Vec<u64> = kernels
        .iter()
        .map(|k| kernel_key(text, k, options_hash))
        .collect();
    let reused: Vec<Option<Arc<KernelResult>>> =
        keys.iter().map(|&key| cache.get_kernel(key)).collect();
    // A kernel decided `not-verified` by the project (names only a missing
    // header could define) costs no query: its verdict is known.
    let unverifiable = |k: &Kernel| options.unverifiable_kernels.contains(&k.name);
    let todo: Vec<&Kernel> = kernels
        .iter()
        .zip(&reused)
        .filter(|(k, r)| r.is_none() && !unverifiable(k))
        .map(|(k, _)| k)
        .collect();
    if let Some(p) = progress {
        p.total.store(todo.len(), Ordering::Relaxed);
        let kept = if p.keep_findings {
            p.findings.lock().ok()
        } else {
            None
        };
        if let Some(mut f) = kept {
            f.extend(report.findings.iter().cloned());
            for (k, r) in kernels.iter().zip(&reused) {
                if let Some(r) = r {
                    let base = i64::from(k.def_span.start.offset);
                    f.extend(KernelResult::clone(r).shifted(base).findings);
                }
            }
        }
    }
    // A race or divergence is definite only when its witness also runs from
    // source (done on the worker, before the kernel's findings are counted
    // as early results).
    let unit = source_replay::UnitProgram::new();
    let confirm = |k: &Kernel, findings: &mut Vec<Finding>, r: &mut KernelReport| {
        source_replay::confirm(text, &unit, k, options, findings, r)
    };
    let mut outcomes =
        crate::verify::verify_kernels(&todo, options, cache, cancel, progress, &confirm)
            .into_iter();
    let live = || cancel.map(|c| !c.load(Ordering::Relaxed)).unwrap_or(true);
    for ((kernel, key), reused) in kernels.iter().zip(keys).zip(reused) {
        let base = i64::from(kernel.def_span.start.offset);
        if let Some(r) = reused {
            let r = KernelResult::clone(&r).shifted(base);
            report.findings.extend(r.findings);
            report.kernels.push(r.report);
            report.stats.kernels_reused += 1;
            continue;
        }
        if unverifiable(kernel) {
            report.kernels.push(KernelReport {
                name: kernel.name.clone(),
                span: kernel.span,
                status: KernelStatus::NotVerified,
                millis: 0,
                queries: 0,
                queries_reused: 0,
                launch: None,
                launch_note: None,
                dims_taken_as_one: Vec::new(),
            });
            continue;
        }
        let Some((mut findings, kreport, races, stats)) = outcomes.next() else {
            break;
        };
        if options.compute_fixes && live() {
            fixes::add_fixes(
                text,
                tree,
                kernel,
                &mut findings,
                &races,
                options,
                cache,
                cancel,
                &|_| true,
                true,
            );
        }
        // Only a complete run is kept: never cancelled, within its budget
        // (a budget is wall-clock time: the next run may finish).
        if live() && stats.kernels_over_budget == 0 {
            let kept = KernelResult {
                findings: findings.clone(),
                report: kreport.clone(),
            };
            cache.insert_kernel(key, Arc::new(kept.shifted(-base)));
        }
        report.findings.extend(findings);
        report.kernels.push(kreport);
        report.stats += stats;
    }
    report
}

/// The quick-fixes of `findings` (from an analysis of this very text and
/// options), computed on request rather than with the analysis: the kernels
/// they belong to are lowered and verified again (the query cache answers
/// what the analysis asked) and each candidate is checked on the model
/// within its budget. `fixes[i]` is for `findings[i]`. Complete results are
/// kept in the cache by kernel content and finding; `cancel` (a newer edit)
/// stops the work, and what is left undone is returned empty.
pub fn quick_fixes(
    text: &str,
    tree: &tree_sitter::Tree,
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
    findings: &[Finding],
) -> Vec<Vec<Fix>> {
    fixes_found(text, tree, options, cache, cancel, findings)
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect()
}

/// [`quick_fixes`], telling apart a finding that the analysis under
/// `options` does not find (`None`: another launch's finding) from one
/// it finds with no fix (`Some(vec![])`).
pub(crate) fn fixes_found(
    text: &str,
    tree: &tree_sitter::Tree,
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
    findings: &[Finding],
) -> Vec<Option<Vec<Fix>>> {
    fix_stage(text, tree, options, cache, cancel, findings, false)
        .into_iter()
        .map(|found| found.map(|(fixes, _)| fixes))
        .collect()
}

/// The race conditions of `findings` (`Finding::race_condition`, from an
/// analysis of this very text and options, which computes them only with
/// its quick-fixes): computed on request like [`quick_fixes`], without the
/// code fixes' search.
/// `conditions[i]` is for `findings[i]`; `None` where none was proved.
pub fn race_conditions(
    text: &str,
    tree: &tree_sitter::Tree,
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
    findings: &[Finding],
) -> Vec<Option<RaceCondition>> {
    fix_stage(text, tree, options, cache, cancel, findings, true)
        .into_iter()
        .map(|found| found.and_then(|(_, condition)| condition))
        .collect()
}

/// The quick-fixes and race conditions of `findings` (`None`: a finding
/// the analysis under `options` does not find); with `conditions`, the
/// conditions (and the assumption fixes that come with them) only.
/// Fixes kept in the cache are reused unless `conditions` is asked for
/// (the cache keeps no conditions; the queries they ask are in the query
/// cache).
type FixesAndCondition = (Vec<Fix>, Option<RaceCondition>);
fn fix_stage(
    text: &str,
    tree: &tree_sitter::Tree,
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
    findings: &[Finding],
    conditions: bool,
) -> Vec<Option<FixesAndCondition>> {
    let mut out: Vec<Option<FixesAndCondition>> = vec![None; findings.len()];
    let fixable = |f: &Finding| {
        matches!(
            f.kind,
            FindingKind::DataRace | FindingKind::RedundantBarrier | FindingKind::BarrierDivergence
        ) && f.kernel.is_some()
    };
    if !findings.iter().any(fixable) {
        return out;
    }
    let options = &Options {
        compute_fixes: false,
        ..crate::options::with_file_directives(text, options)
    };
    let options_hash = hash_of(&format!("{options:?}"));
    let Ok(kernels) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        models::lower(text, tree, options, options_hash, cache)
    })) else {
        return out;
    };
    let live = || cancel.map(|c| !c.load(Ordering::Relaxed)).unwrap_or(true);
    for kernel in &kernels {
        let mine: Vec<usize> = (0..findings.len())
            .filter(|&i| {
                let f = &findings[i];
                fixable(f)
                    && f.kernel.as_deref() == Some(kernel.name.as_str())
                    && kernel.def_span.start.offset <= f.span.start.offset
                    && f.span.end.offset <= kernel.def_span.end.offset
            })
            .collect();
        if mine.is_empty() {
            continue;
        }
        let base = i64::from(kernel.def_span.start.offset);
        let kernel_key = kernel_key(text, kernel, options_hash);
        let fix_key = |f: &Finding| {
            let mut f = f.clone();
            f.shift_offsets(-base);
            f.fixes.clear();
            hash_of(&(kernel_key, format!("{:?}", (f.kind, f.span, &f.pairs))))
        };
        let mut todo = Vec::new();
        for &i in &mine {
            let kept = if conditions {
                None
            } else {
                cache.get_fixes(fix_key(&findings[i]))
            };
            match kept {
                Some(fixes) => {
                    out[i] = Some((
                        fixes
                            .iter()
                            .cloned()
                            .map(|mut x| {
                                x.edits.iter_mut().for_each(|e| e.span.shift_offsets(base));
                                x
                            })
                            .collect(),
                        None,
                    ))
                }
                None => todo.push(i),
            }
        }
        if todo.is_empty() || !live() {
            continue;
        }
        let verified = crate::parallel::on_analysis_stack("syncscope-fixes", || {
            crate::verify::verify_one(kernel, options, cache, cancel)
        });
        let Some((mut fresh, _, races, _)) = verified else {
            continue;
        };
        let same =
            |a: &Finding, b: &Finding| a.kind == b.kind && a.span == b.span && a.pairs == b.pairs;
        let wanted = |f: &Finding| todo.iter().any(|&i| same(&findings[i], f));
        fixes::add_fixes(
            text,
            tree,
            kernel,
            &mut fresh,
            &races,
            options,
            cache,
            cancel,
            &wanted,
            !conditions,
        );
        if !live() {
            return out;
        }
        for &i in &todo {
            let Some(f) = fresh.iter().find(|f| same(&findings[i], f)) else {
                continue;
            };
            out[i] = Some((f.fixes.clone(), f.race_condition.clone()));
            // Only the conditions were computed: no fixes to keep.
            if !conditions && f.fixes.iter().all(|x| x.verified) {
                let kept = f
                    .fixes
                    .iter()
                    .cloned()
                    .map(|mut x| {
                        x.edits.iter_mut().for_each(|e| e.span.shift_offsets(-base));
                        x
                    })
                    .collect();
                cache.insert_fixes(fix_key(&findings[i]), kept);
            }
        }
    }
    out
}

pub(super) fn hash_of<T: Hash + ?Sized>(value: &T) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    value.hash(&mut h);
    h.finish()
}

/// The whole-kernel cache key: the kernel's model with offsets relative to
/// its definition (lines and columns stay absolute: messages name lines), its
/// source text (quick-fixes read it) and the options. An edit elsewhere in
/// the file that moves the kernel without changing its lines keeps the key.
pub(crate) fn kernel_key(text: &str, kernel: &Kernel, options_hash: u64) -> u64 {
    let mut model = kernel.clone();
    model.shift_offsets(-i64::from(kernel.def_span.start.offset));
    let start = kernel.def_span.start.offset as usize;
    let end = kernel.def_span.end.offset as usize;
    let source = text.get(start..end).unwrap_or("");
    // Guards share their enclosing conditions: hashed once each.
    crate::model::with_digest_memo(|| hash_of(&(&model, source, options_hash)))
}

/// Notes on directive flags that do not apply: GPUVerify flags Syncscope
/// does not use, and malformed flags (both named, on their line).
fn directive_notes(text: &str, d: &crate::directives::Directives) -> Vec<Finding> {
    let lines = LineStarts::new(text);
    let span_of_line = |line: usize| {
        let start = lines.start(line).unwrap_or(0);
        let end = lines.start(line + 1).unwrap_or(text.len());
        let end = text[start..end].trim_end().len() + start;
        let point = |offset: usize| {
            let (l, line_start) = lines.line_of(offset);
            Point {
                line: l as u32,
                column: (offset - line_start) as u32,
                offset: offset as u32,
            }
        };
        Span {
            start: point(start),
            end: point(end),
        }
    };
    let mut by_line: std::collections::BTreeMap<usize, Vec<String>> = Default::default();
    for (line, flag) in &d.ignored {
        by_line.entry(*line).or_default().push(format!("`{flag}`"));
    }
    let mut out: Vec<Finding> = by_line
        .into_iter()
        .map(|(line, flags)| {
            Finding::new(
                FindingKind::Note,
                None,
                span_of_line(line),
                format!(
                    "note: GPUVerify flag{} {} ignored (Syncscope reads --blockDim, --gridDim, --warp-sync, --only-intra-group and -D)",
                    if flags.len() > 1 { "s" } else { "" },
                    flags.join(", ")
                ),
            )
        })
        .collect();
    for (line, problem) in &d.errors {
        out.push(Finding::new(
            FindingKind::Note,
            None,
            span_of_line(*line),
            format!("note: directive ignored: {problem}"),
        ));
    }
    out
}

/// The model of kernel `name` in `text` with the value each read yields
/// recorded (`Options::track_values`), for `syncscope equiv`.
pub(crate) fn lower_with_values(
    text: &str,
    options: &Options,
    name: &str,
) -> Option<crate::model::Kernel> {
    let tree = crate::syntax::parse(text, None);
    let tracked = Options {
        track_values: true,
        ..options.clone()
    };
    crate::frontend::lower_file(text, &tree, &tracked)
        .into_iter()
        .find(|k| k.name == name)
}

/// The status `check` gives kernel `name` of `text` under exactly
/// `options` (the file's directives are not applied again), for `syncscope
/// equiv`: whether a version verified with lockstep warps needs them.
pub(crate) fn kernel_status(text: &str, options: &Options, name: &str) -> Option<KernelStatus> {
    let tree = crate::syntax::parse(text, None);
    let kernels = crate::frontend::lower_file(text, &tree, options);
    let k = kernels.iter().find(|k| k.name == name)?;
    let cache = crate::cache::MemoryCache::default();
    let unit = source_replay::UnitProgram::new();
    let confirm = |k: &Kernel, findings: &mut Vec<Finding>, r: &mut KernelReport| {
        source_replay::confirm(text, &unit, k, options, findings, r)
    };
    crate::verify::verify_kernels(&[k], options, &cache, None, None, &confirm)
        .into_iter()
        .next()
        .map(|o| o.1.status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::{CachedAnswer, MemoryCache};

    #[test]
    fn ignored_gpuverify_flags_are_named_in_a_note_and_comments_are_comments() {
        let text = "//pass\n//--blockDim=[64,1] --gridDim=[1,1] --no-inline --warp-sync=16\n__global__ void k(int *a) { a[threadIdx.x] = 0; }\n";
        let report = crate::analyze_source(text, &Options::default());
        let notes: Vec<&Finding> = report
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::Note && f.kernel.is_none())
            .collect();
        assert_eq!(notes.len(), 1, "{:?}", report.findings);
        assert!(notes[0].message.contains("`--no-inline`"));
        assert_eq!(notes[0].span.start.line, 1);
        assert_eq!(report.kernels[0].status, KernelStatus::Verified);
        // A build comment is not a directive: no launch, no note.
        let text = "// Build: nvcc -O3 --use_fast_math\n__global__ void k(int *a) { a[threadIdx.x] = 0; }\n";
        let report = crate::analyze_source(text, &Options::default());
        assert!(report.findings.iter().all(|f| f.kind != FindingKind::Note));
    }
    use std::collections::HashMap;
    use std::sync::Mutex;

    /// A query cache that also keeps whole-kernel results.
    #[derive(Default)]
    struct KernelCache {
        queries: MemoryCache,
        kernels: Mutex<HashMap<u64, Arc<KernelResult>>>,
    }

    impl QueryCache for KernelCache {
        fn get(&self, key: u64) -> Option<CachedAnswer> {
            self.queries.get(key)
        }
        fn insert(&self, key: u64, answer: CachedAnswer) {
            self.queries.insert(key, answer)
        }
        fn get_kernel(&self, key: u64) -> Option<Arc<KernelResult>> {
            self.kernels.lock().unwrap().get(&key).cloned()
        }
        fn insert_kernel(&self, key: u64, outcome: Arc<KernelResult>) {
            self.kernels.lock().unwrap().insert(key, outcome);
        }
    }

    fn file(comment: &str, constant: u32) -> String {
        format!(
            "// {comment}\n__global__ void racy(float *a) {{\n    __shared__ float s[64];\n    s[threadIdx.x] = a[threadIdx.x];\n    a[threadIdx.x] = s[(threadIdx.x + 1) % 64];\n}}\n\n__global__ void fine(float *a) {{\n    __shared__ float s[64];\n    s[threadIdx.x] = {constant}.0f;\n    __syncthreads();\n    a[threadIdx.x] = s[63 - threadIdx.x];\n}}\n"
        )
    }

    fn run(text: &str, cache: &dyn QueryCache) -> FileReport {
        let options = Options {
            block_dim: Some([64, 1, 1]),
            grid_dim: Some([1, 1, 1]),
            compute_fixes: true,
            ..Options::default()
        };
        let tree = crate::parse(text, None);
        let mut r = analyze_file(text, &tree, &options, cache, None, None);
        r.kernels.iter_mut().for_each(|k| k.millis = 0);
        r
    }

    #[test]
    fn unchanged_kernels_reuse_their_results_at_their_new_offsets() {
        let cache = KernelCache::default();
        let first = run(&file("a", 1), &cache);
        assert_eq!(first.stats.kernels_reused, 0);
        assert!(first
            .findings
            .iter()
            .any(|f| f.kind == FindingKind::DataRace));
        assert!(first.findings.iter().any(|f| !f.fixes.is_empty()));

        // Same lines, every kernel moved by two bytes: both reused, and the
        // report is exactly what a cold analysis gives.
        let moved = file("abc", 1);
        let warm = run(&moved, &cache);
        assert_eq!(warm.stats.kernels_reused, 2);
        let cold = run(&moved, &MemoryCache::default());
        assert_eq!(warm.findings, cold.findings);
        assert_eq!(warm.kernels, cold.kernels);

        // An edit inside one kernel re-verifies that kernel only.
        let edited = run(&file("abc", 2), &cache);
        assert_eq!(edited.stats.kernels_reused, 1);
        assert_eq!(edited.stats.kernels_analysed, 1);
    }

    #[test]
    fn a_kernel_stopped_by_its_budget_is_not_kept_for_reuse() {
        // Nonlinear indices the solver cannot decide within the budget.
        let text = "__global__ void hard(int *a, int n, int m) {\n    int x = threadIdx.x + n, y = blockIdx.x + m;\n    a[x*x*x + y*y*y + n*n*n] = 1;\n    a[y*y*y*x + 7*n*m*x] = 2;\n}\n";
        let options = Options {
            timeout_ms: 20_000,
            kernel_budget_ms: 200,
            ..Options::default()
        };
        let cache = KernelCache::default();
        let tree = crate::parse(text, None);
        let r = analyze_file(text, &tree, &options, &cache, None, None);
        assert_eq!(r.stats.kernels_over_budget, 1);
        assert_eq!(r.kernels[0].status, KernelStatus::Unknown);
        assert!(cache.kernels.lock().unwrap().is_empty());
    }
}
