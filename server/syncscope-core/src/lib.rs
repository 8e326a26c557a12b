//! Syncscope core: CUDA source → kernel model → Z3 verification → plain-data report.
//!
//! The pipeline has one module per stage:
//! `syntax` (tree-sitter parse, syntax errors) → `frontend` (tree → `model`)
//! → `verify` (barrier intervals, two-thread SMT queries, witness replay,
//! quick-fixes) → `report` (findings and verdicts).
//!
//! Architecture Invariant: this crate knows nothing of LSP, JSON-RPC or async
//! runtimes. It is called synchronously by the CLI and by the server's
//! worker threads; everything it returns is plain data.

pub mod analysis;
pub mod cache;
pub mod directives;
pub mod equiv;
pub mod frontend;
pub mod model;
pub mod options;
mod parallel;
pub mod project;
pub mod report;
pub mod symbols;
pub mod syntax;
pub(crate) mod verify;

pub use cache::{CachedAnswer, KernelResult, MemoryCache, QueryCache, QueryOutcome};
pub use options::{LaunchOverride, Options};
pub use parallel::{keep_little_freed_memory, limit_threads_at_work};
pub use report::*;

use std::sync::atomic::AtomicBool;

/// Applies `f` to every item on the core's one worker pool (as many
/// workers as cores, results in item order, a panic reaches the caller):
/// the CLI analyses files this way, as the core lowers and verifies the
/// kernels of a file.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = parallel::cores().min(items.len());
    parallel::parallel_map(items, workers, parallel::ANALYSIS_STACK, f)
}

/// Parses CUDA source. Never fails: errors are nodes of the tree, reported by
/// [`syntax::syntax_errors`]. With `old` (already edited with `Tree::edit`)
/// the parse is incremental.
pub fn parse(text: &str, old: Option<&tree_sitter::Tree>) -> tree_sitter::Tree {
    syntax::parse(text, old)
}

/// The syntax errors of a file as the compiler reads it: with its
/// conditionals decided under `options` (the device pass's macros and the
/// `-D`s), so a branch the compiler skips, or an `#if` inside a parameter
/// list, is no error. `tree` is `text`'s parse; it is parsed again only when
/// it has errors and conditionals to decide.
pub fn syntax_errors_as_read(
    text: &str,
    tree: &tree_sitter::Tree,
    options: &Options,
) -> Vec<Finding> {
    let raw = syntax::syntax_errors(tree, text);
    if raw.is_empty() {
        return raw;
    }
    let resolved = frontend::resolve_conditionals(text, &frontend::pass_defines(options));
    match resolved.text {
        std::borrow::Cow::Borrowed(_) => raw,
        std::borrow::Cow::Owned(decided) => syntax::syntax_errors(&parse(&decided, None), &decided),
    }
}

/// Analyses every kernel of a parsed file. `cache` holds SMT query results by
/// query hash; `cancel` is polled between queries (an obsolete analysis stops
/// early and its report is marked by `cancelled` in the caller's hands).
pub fn analyze(
    text: &str,
    tree: &tree_sitter::Tree,
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
) -> FileReport {
    analysis::analyze_file(text, tree, options, cache, cancel, None)
}

/// [`analyze`], counting finished kernels and their findings in `progress`
/// as they come (for progress reports and early results).
pub fn analyze_with_progress(
    text: &str,
    tree: &tree_sitter::Tree,
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
    progress: &Progress,
) -> FileReport {
    analysis::analyze_file(text, tree, options, cache, cancel, Some(progress))
}

/// Parses and analyses with a fresh cache: the one-shot entry point of the CLI.
pub fn analyze_source(text: &str, options: &Options) -> FileReport {
    let tree = parse(text, None);
    analyze(text, &tree, options, &MemoryCache::default(), None)
}
