//! The analysis actor: one tokio task that owns the scheduling of analyses.
//!
//! Handlers apply edits to documents synchronously and send [`Event`]s here.
//! Per document the actor starts an analysis at once when the document is
//! idle, debounces edits that arrive while one is running or pending, cancels
//! obsolete runs (their `cancel` flag is set and their result discarded), runs
//! the core analysis on blocking threads (documents in parallel), and
//! publishes diagnostics for exactly the version that was analysed, never for
//! a stale one. Syntax errors are published at once, verification results
//! when they are ready.

use crate::config::Effective;
use crate::document::{Encoding, LineIndex, Snapshot};
use crate::to_proto::{self, Source};
use dashmap::DashMap;
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use syncscope_core::analysis::project::FixBasis;
use syncscope_core::model::Kernel;
use syncscope_core::project::{Overlay, SearchPaths};
use syncscope_core::{
    CachedAnswer, FileReport, Finding, FindingKind, Fix, KernelReport, KernelResult, Options,
    Progress, QueryCache, Stats,
};
use tokio::sync::{mpsc, oneshot, Semaphore};
use tower_lsp_server::lsp_types::{
    notification::Notification, request::WorkDoneProgressCreate, Diagnostic, MessageType,
    NumberOrString, Uri, WorkDoneProgressCreateParams,
};
use tower_lsp_server::Client;

/// Analyses running longer than this get a `$/progress` report.
const PROGRESS_AFTER: Duration = Duration::from_millis(200);
/// How often a long analysis reports progress and publishes its results so far.
const PROGRESS_EVERY: Duration = Duration::from_millis(500);
/// The query cache is cleared when it grows past this many queries.
const CACHE_LIMIT: usize = 500_000;
/// At most this many files are analysed at the same time (each analysis
/// already verifies its kernels on every core); the others wait their turn.
/// Bounds peak memory when many files are opened at once.
const CONCURRENT_ANALYSES: usize = 2;
/// The kernel cache is cleared when it grows past this many kernel results.
const KERNEL_CACHE_LIMIT: usize = 20_000;

/// The query and kernel caches shared by every analysis of the server.
#[derive(Default)]
pub struct SharedCache {
    queries: DashMap<u64, CachedAnswer>,
    kernels: DashMap<u64, Arc<KernelResult>>,
    fixes: DashMap<u64, Vec<Fix>>,
    /// Lowered kernel models (the core's keys say what each depends on).
    models: DashMap<u64, Arc<Kernel>>,
}

impl QueryCache for SharedCache {
    fn get(&self, key: u64) -> Option<CachedAnswer> {
        self.queries.get(&key).map(|v| v.clone())
    }
    fn insert(&self, key: u64, answer: CachedAnswer) {
        if self.queries.len() >= CACHE_LIMIT {
            self.queries.clear();
        }
        self.queries.insert(key, answer);
    }
    fn get_kernel(&self, key: u64) -> Option<Arc<KernelResult>> {
        self.kernels.get(&key).map(|v| v.clone())
    }
    fn insert_kernel(&self, key: u64, outcome: Arc<KernelResult>) {
        if self.kernels.len() >= KERNEL_CACHE_LIMIT {
            self.kernels.clear();
        }
        self.kernels.insert(key, outcome);
    }
    fn get_fixes(&self, key: u64) -> Option<Vec<Fix>> {
        self.fixes.get(&key).map(|v| v.clone())
    }
    fn insert_fixes(&self, key: u64, fixes: Vec<Fix>) {
        if self.fixes.len() >= KERNEL_CACHE_LIMIT {
            self.fixes.clear();
        }
        self.fixes.insert(key, fixes);
    }
    fn get_model(&self, key: u64) -> Option<Arc<Kernel>> {
        self.models.get(&key).map(|v| v.clone())
    }
    fn insert_model(&self, key: u64, model: Arc<Kernel>) {
        if self.models.len() >= KERNEL_CACHE_LIMIT {
            self.models.clear();
        }
        self.models.insert(key, model);
    }
}

/// The `syncscope/status` notification.
pub enum StatusNotification {}

impl Notification for StatusNotification {
    type Params = serde_json::Value;
    const METHOD: &'static str = "syncscope/status";
}

/// The result of the latest analysis of a document version, for hover, code
/// actions and code lenses.
pub struct Analysis {
    pub version: i32,
    pub text: Arc<str>,
    pub tree: tree_sitter::Tree,
    pub index: Arc<LineIndex>,
    pub encoding: Encoding,
    /// The options of the configuration this analysis ran under
    /// (`compute_fixes`: whether code actions offer quick-fixes).
    pub options: Arc<Options>,
    pub findings: Vec<Finding>,
    /// `diagnostics[i]` is the diagnostic of `findings[i]`.
    pub diagnostics: Vec<Diagnostic>,
    pub kernels: Vec<KernelReport>,
    /// What quick-fixes are computed from: the unit and the launches this
    /// analysis checked the file under (the CLI's `--fixes` uses the same).
    pub fix_basis: Arc<FixBasis>,
}

impl Analysis {
    pub fn source(&self) -> Source<'_> {
        Source {
            text: &self.text,
            index: &self.index,
            encoding: self.encoding,
        }
    }
}

/// State shared by the actor and the request handlers.
pub struct Shared {
    pub client: Client,
    pub cache: Arc<SharedCache>,
    pub stats: Mutex<Stats>,
    pub results: DashMap<String, Arc<Analysis>>,
    pub supports_progress: AtomicBool,
    pub supports_lens_refresh: AtomicBool,
    /// The client shows a "Compare with…" lens per kernel (`from_proto::supports_compare_lens`).
    pub supports_compare_lens: AtomicBool,
    progress_ids: AtomicU64,
    analysis_slots: Arc<Semaphore>,
    /// One slot for the document being edited, so that it never queues
    /// behind background re-analyses of other files.
    edit_slot: Arc<Semaphore>,
    /// Per document: set when a newer edit arrives, which stops the
    /// quick-fix checks of older versions (`textDocument/codeAction`).
    edit_flags: DashMap<String, Arc<AtomicBool>>,
    /// Quick-fix requests stopped by a newer edit (`syncscope/stats`).
    pub fixes_cancelled: AtomicU64,
}

impl Shared {
    pub fn new(client: Client) -> Shared {
        Shared {
            client,
            cache: Arc::default(),
            stats: Mutex::default(),
            results: DashMap::new(),
            supports_progress: AtomicBool::new(false),
            supports_lens_refresh: AtomicBool::new(false),
            supports_compare_lens: AtomicBool::new(false),
            progress_ids: AtomicU64::new(0),
            analysis_slots: Arc::new(Semaphore::new(CONCURRENT_ANALYSES)),
            edit_slot: Arc::new(Semaphore::new(1)),
            edit_flags: DashMap::new(),
            fixes_cancelled: AtomicU64::new(0),
        }
    }

    /// A newer version of `key` exists: stops work for the older ones.
    pub fn edited(&self, key: &str) {
        let fresh = Arc::new(AtomicBool::new(false));
        if let Some(old) = self.edit_flags.insert(key.to_string(), fresh) {
            old.store(true, Ordering::SeqCst);
        }
    }

    /// The flag a newer edit of `key` will set.
    pub fn edit_flag(&self, key: &str) -> Arc<AtomicBool> {
        self.edit_flags
            .entry(key.to_string())
            .or_insert_with(|| Arc::new(AtomicBool::new(false)))
            .clone()
    }

    pub fn stats(&self) -> Stats {
        self.stats.lock().map(|s| *s).unwrap_or_default()
    }
}

pub enum Event {
    /// A document was opened or edited: analyse this version.
    Changed {
        uri: Uri,
        snapshot: Snapshot,
        encoding: Encoding,
        /// An edit (not an open): analysed ahead of other documents.
        edited: bool,
    },
    Closed {
        uri: Uri,
    },
    /// Re-analyse one document (`syncscope.verifyFile`) or all (`None`).
    Reanalyse {
        uri: Option<Uri>,
    },
    /// New effective configuration: re-analyse every open document.
    Config(Effective),
    /// Files changed on disk or were saved: re-analyse the open documents
    /// that include one of them.
    FilesChanged {
        paths: Vec<PathBuf>,
    },
    /// Findings of the kernels verified so far by a long analysis.
    Partial {
        key: String,
        generation: u64,
        findings: Vec<Finding>,
    },
    Finished {
        key: String,
        generation: u64,
        /// The options the analysis ran with.
        options: Arc<Options>,
        /// The report, and the local headers the analysis read.
        outcome: Result<(FileReport, Vec<PathBuf>, FixBasis), String>,
    },
}

struct DocState {
    uri: Uri,
    snapshot: Snapshot,
    encoding: Encoding,
    generation: u64,
    due: Option<Instant>,
    cancel: Option<Arc<AtomicBool>>,
    /// The verification diagnostics last published (kept while syntax errors
    /// of a newer version are published at once).
    last_verification: Vec<Diagnostic>,
    published_syntax: bool,
    /// The latest change was an edit (see `Event::Changed`).
    edited: bool,
    /// The document's file, and the local headers its last analysis read.
    path: Option<PathBuf>,
    includes: Vec<PathBuf>,
    /// The [`Actor::changes`] count when the running analysis took its
    /// snapshot of the open buffers.
    started: u64,
}

/// Generations are unique across documents and reopenings, so a run started
/// for a closed (and maybe reopened) document can never pass for a current one.
static GENERATION: AtomicU64 = AtomicU64::new(0);

fn next_generation() -> u64 {
    GENERATION.fetch_add(1, Ordering::Relaxed) + 1
}

impl DocState {
    /// Cancels the running analysis (if any) and makes its result obsolete.
    fn obsolete_running(&mut self) {
        if let Some(c) = self.cancel.take() {
            c.store(true, Ordering::SeqCst);
        }
        self.generation = next_generation();
    }
}

pub struct Actor {
    shared: Arc<Shared>,
    rx: mpsc::UnboundedReceiver<Event>,
    tx: mpsc::UnboundedSender<Event>,
    docs: HashMap<String, DocState>,
    options: Arc<Options>,
    search: Arc<SearchPaths>,
    debounce: Duration,
    /// Changes of file contents seen so far (buffers opened, edited or
    /// closed; files saved or changed on disk), and the count at the last
    /// change of each file. An analysis that read a file changed after it
    /// started is run again: it may have read the file before the change,
    /// and the includes it had before (which make a header's edit
    /// re-verify its includers) may not have named that file, as on the
    /// first analysis of a document or after an edit added an `#include`.
    changes: u64,
    changed: HashMap<PathBuf, u64>,
}

/// Starts the actor on the current runtime; returns its event sender.
pub fn spawn(shared: Arc<Shared>) -> mpsc::UnboundedSender<Event> {
    let (tx, rx) = mpsc::unbounded_channel();
    let effective = Effective::default();
    let actor = Actor {
        shared,
        rx,
        tx: tx.clone(),
        docs: HashMap::new(),
        options: Arc::new(effective.options),
        search: Arc::new(effective.search),
        debounce: Duration::from_millis(effective.debounce_ms),
        changes: 0,
        changed: HashMap::new(),
    };
    tokio::spawn(actor.run());
    tx
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}

impl Actor {
    async fn run(mut self) {
        loop {
            let next_due = self.docs.values().filter_map(|d| d.due).min();
            let event = match next_due {
                Some(due) => {
                    tokio::select! {
                        ev = self.rx.recv() => ev,
                        _ = tokio::time::sleep_until(due.into()) => {
                            self.start_due().await;
                            continue;
                        }
                    }
                }
                None => self.rx.recv().await,
            };
            match event {
                Some(ev) => self.handle(ev).await,
                None => break,
            }
        }
        for d in self.docs.values_mut() {
            d.obsolete_running();
        }
    }

    async fn handle(&mut self, ev: Event) {
        match ev {
            Event::Changed {
                uri,
                snapshot,
                encoding,
                edited,
            } => {
                let key = uri.as_str().to_string();
                let now = Instant::now();
                let doc = self.docs.entry(key).or_insert_with(|| DocState {
                    uri: uri.clone(),
                    snapshot: snapshot.clone(),
                    encoding,
                    generation: next_generation(),
                    due: None,
                    cancel: None,
                    last_verification: Vec::new(),
                    published_syntax: false,
                    edited,
                    path: crate::from_proto::file_path(&uri),
                    includes: Vec::new(),
                    started: 0,
                });
                doc.edited = edited;
                // Leading edge: an edit to an idle document (no analysis
                // running or pending) is analysed at once; edits that come
                // while one is running or pending are coalesced by the
                // debounce, and the obsolete run is cancelled.
                let idle = doc.cancel.is_none() && doc.due.is_none();
                doc.obsolete_running();
                doc.snapshot = snapshot;
                doc.encoding = encoding;
                doc.due = Some(if idle { now } else { now + self.debounce });
                let edited = doc.path.clone();
                // Syntax errors at once (cheap), with the last verification
                // diagnostics kept until fresh ones arrive.
                let syntax = syntax_diagnostics(&uri, &doc.snapshot, encoding, &self.options);
                if !syntax.is_empty() || doc.published_syntax {
                    doc.published_syntax = !syntax.is_empty();
                    let mut all = syntax;
                    all.extend(doc.last_verification.iter().cloned());
                    let version = doc.snapshot.version;
                    self.shared
                        .client
                        .publish_diagnostics(uri, all, Some(version))
                        .await;
                }
                // An edited header: the open documents including it follow.
                if let Some(p) = edited {
                    self.dependents_due(&[p], now + self.debounce);
                }
            }
            Event::FilesChanged { paths } => {
                self.dependents_due(&paths, Instant::now());
            }
            Event::Closed { uri } => {
                let key = uri.as_str().to_string();
                if let Some(mut d) = self.docs.remove(&key) {
                    d.obsolete_running();
                    // Its includers read the disk again, not the buffer
                    // (which may have held unsaved edits).
                    if let Some(p) = d.path {
                        self.dependents_due(&[p], Instant::now());
                    }
                }
                self.shared.results.remove(&key);
                self.shared
                    .client
                    .publish_diagnostics(uri, Vec::new(), None)
                    .await;
            }
            Event::Reanalyse { uri } => {
                let now = Some(Instant::now());
                for (key, d) in self.docs.iter_mut() {
                    if uri.as_ref().is_none_or(|u| u.as_str() == key) {
                        d.obsolete_running();
                        d.due = now;
                    }
                }
            }
            Event::Config(effective) => {
                self.options = Arc::new(effective.options);
                self.search = Arc::new(effective.search);
                self.debounce = Duration::from_millis(effective.debounce_ms);
                let now = Some(Instant::now());
                for d in self.docs.values_mut() {
                    d.obsolete_running();
                    d.due = now;
                }
            }
            Event::Partial {
                key,
                generation,
                findings,
            } => self.partial(key, generation, findings).await,
            Event::Finished {
                key,
                generation,
                options,
                outcome,
            } => self.finished(key, generation, options, outcome).await,
        }
    }

    /// Makes the documents that include one of `paths` due at `when`, and
    /// records that `paths` changed (see [`Actor::changes`]).
    fn dependents_due(&mut self, paths: &[PathBuf], when: Instant) {
        self.changes += 1;
        for p in paths {
            self.changed.insert(p.clone(), self.changes);
        }
        for d in self.docs.values_mut() {
            if d.includes.iter().any(|i| paths.contains(i)) {
                d.obsolete_running();
                d.due = Some(d.due.map_or(when, |t| t.min(when)));
            }
        }
    }

    /// The open buffers by path: they win over the disk.
    fn overlay(&self) -> Arc<HashMap<PathBuf, String>> {
        Arc::new(
            self.docs
                .values()
                .filter_map(|d| Some((d.path.clone()?, d.snapshot.text.to_string())))
                .collect(),
        )
    }

    /// For a header: the headers an open document that includes it reads,
    /// so the header is analysed in that document's context.
    fn context_of(&self, path: &PathBuf) -> Vec<PathBuf> {
        self.docs
            .values()
            .find(|d| d.includes.contains(path))
            .map(|d| d.includes.iter().filter(|i| *i != path).cloned().collect())
            .unwrap_or_default()
    }

    /// Starts every analysis whose debounce has elapsed.
    async fn start_due(&mut self) {
        let now = Instant::now();
        let due: Vec<String> = self
            .docs
            .iter()
            .filter(|(_, d)| d.due.is_some_and(|t| t <= now))
            .map(|(k, _)| k.clone())
            .collect();
        let overlay = self.overlay();
        for key in due {
            let context = self
                .docs
                .get(&key)
                .and_then(|d| d.path.clone())
                .map(|p| self.context_of(&p))
                .unwrap_or_default();
            let mut search = SearchPaths::clone(&self.search);
            search.context = context;
            let Some(doc) = self.docs.get_mut(&key) else {
                continue;
            };
            let path = doc.path.clone();
            doc.due = None;
            if let Some(c) = doc.cancel.take() {
                c.store(true, Ordering::SeqCst);
            }
            let cancel = Arc::new(AtomicBool::new(false));
            doc.cancel = Some(cancel.clone());
            let generation = doc.generation;
            doc.started = self.changes;
            let snapshot = doc.snapshot.clone();
            let uri = doc.uri.clone();
            let edited = std::mem::take(&mut doc.edited);
            self.shared
                .client
                .send_notification::<StatusNotification>(to_proto::status(
                    &uri,
                    snapshot.version,
                    "analysing",
                    &[],
                ))
                .await;
            tokio::spawn(run_analysis(
                self.shared.clone(),
                self.tx.clone(),
                self.options.clone(),
                Project {
                    path,
                    search: Arc::new(search),
                    overlay: overlay.clone(),
                },
                key,
                uri,
                generation,
                snapshot,
                cancel,
                edited,
            ));
        }
    }

    /// Publishes the results of a long analysis so far (results as they
    /// come), for the version being analysed only.
    async fn partial(&mut self, key: String, generation: u64, findings: Vec<Finding>) {
        let Some(doc) = self.docs.get_mut(&key) else {
            return;
        };
        if doc.generation != generation || doc.cancel.is_none() {
            return;
        }
        let snap = &doc.snapshot;
        let src = Source {
            text: &snap.text,
            index: &snap.index,
            encoding: doc.encoding,
        };
        let mut diagnostics: Vec<Diagnostic> = findings
            .iter()
            .filter(|f| f.kind != FindingKind::SyntaxError)
            .map(|f| to_proto::diagnostic(&doc.uri, src, f))
            .collect();
        doc.last_verification = diagnostics.clone();
        diagnostics.extend(syntax_diagnostics(
            &doc.uri,
            snap,
            doc.encoding,
            &self.options,
        ));
        let (uri, version) = (doc.uri.clone(), snap.version);
        self.shared
            .client
            .publish_diagnostics(uri, diagnostics, Some(version))
            .await;
    }

    async fn finished(
        &mut self,
        key: String,
        generation: u64,
        options: Arc<Options>,
        outcome: Result<(FileReport, Vec<PathBuf>, FixBasis), String>,
    ) {
        let client = self.shared.client.clone();
        let mut stale = false;
        let outcome = match outcome {
            Ok((report, includes, basis)) => {
                if let Some(d) = self
                    .docs
                    .get_mut(&key)
                    .filter(|d| d.generation == generation)
                {
                    // A file it read changed while it ran, and that change
                    // did not make this run obsolete (the includes known
                    // then did not name the file): the result is
                    // published, and the document analysed again.
                    stale = includes
                        .iter()
                        .any(|i| self.changed.get(i).is_some_and(|&c| c > d.started));
                    d.includes = includes;
                }
                Ok((report, basis))
            }
            Err(e) => Err(e),
        };
        if let Ok((report, _)) = &outcome {
            let total = {
                let mut s = self.shared.stats.lock().unwrap_or_else(|e| e.into_inner());
                *s += report.stats;
                *s
            };
            client
                .log_message(
                    MessageType::LOG,
                    format!(
                        "syncscope: {key}: {} queries run, {} reused, {} kernels analysed, {} reused (total: {} run, {} reused)",
                        report.stats.queries_run,
                        report.stats.queries_reused,
                        report.stats.kernels_analysed,
                        report.stats.kernels_reused,
                        total.queries_run,
                        total.queries_reused
                    ),
                )
                .await;
        }
        let Some(doc) = self.docs.get_mut(&key) else {
            return;
        };
        if doc.generation != generation {
            return; // obsolete: a newer version or configuration superseded it
        }
        doc.cancel = None;
        let uri = doc.uri.clone();
        let snap = doc.snapshot.clone();
        let src = Source {
            text: &snap.text,
            index: &snap.index,
            encoding: doc.encoding,
        };
        let mut fix_basis = FixBasis::default();
        let (findings, kernels, extra) = match outcome {
            Ok((report, basis)) => {
                fix_basis = basis;
                // The analysis's own syntax errors: those of the file as the
                // compiler reads it (a conditional inside an argument list,
                // which the buffer's own parse rejects, is read there with
                // its untaken branch left out), as `check` reports them.
                (report.findings, report.kernels, None)
            }
            Err(msg) => {
                client
                    .log_message(
                        MessageType::ERROR,
                        format!("syncscope: analysis of {key} panicked: {msg}"),
                    )
                    .await;
                let findings =
                    syncscope_core::syntax_errors_as_read(&snap.text, &snap.tree, &options);
                (findings, Vec::new(), Some(to_proto::internal_error(&msg)))
            }
        };
        let diagnostics: Vec<Diagnostic> = findings
            .iter()
            .map(|f| to_proto::diagnostic(&uri, src, f))
            .collect();
        let mut published = diagnostics.clone();
        published.extend(extra.clone());
        doc.last_verification = findings
            .iter()
            .zip(&diagnostics)
            .filter(|(f, _)| f.kind != FindingKind::SyntaxError)
            .map(|(_, d)| d.clone())
            .chain(extra.clone())
            .collect();
        doc.published_syntax = findings.iter().any(|f| f.kind == FindingKind::SyntaxError);
        let verdict = if extra.is_some() {
            "unknown"
        } else {
            to_proto::verdict(&kernels, doc.published_syntax)
        };
        let status = to_proto::status(&uri, snap.version, verdict, &kernels);
        self.shared.results.insert(
            key,
            Arc::new(Analysis {
                version: snap.version,
                text: snap.text.clone(),
                tree: snap.tree.clone(),
                index: snap.index.clone(),
                encoding: doc.encoding,
                options,
                findings,
                diagnostics,
                kernels,
                fix_basis: Arc::new(fix_basis),
            }),
        );
        if stale {
            doc.obsolete_running();
            doc.due = Some(Instant::now());
        }
        client
            .publish_diagnostics(uri, published, Some(snap.version))
            .await;
        client.send_notification::<StatusNotification>(status).await;
        if self.shared.supports_lens_refresh.load(Ordering::Relaxed) {
            // A request: never wait for the client's answer here.
            tokio::spawn(async move {
                let _ = client.code_lens_refresh().await;
            });
        }
    }
}

/// The document's syntax errors as the compiler reads it (its conditionals
/// decided under `options`).
fn syntax_diagnostics(
    uri: &Uri,
    snap: &Snapshot,
    encoding: Encoding,
    options: &Options,
) -> Vec<Diagnostic> {
    let src = Source {
        text: &snap.text,
        index: &snap.index,
        encoding,
    };
    syncscope_core::syntax_errors_as_read(&snap.text, &snap.tree, options)
        .iter()
        .map(|f| to_proto::diagnostic(uri, src, f))
        .collect()
}

/// Where a document sits in its project.
struct Project {
    path: Option<PathBuf>,
    search: Arc<SearchPaths>,
    overlay: Arc<HashMap<PathBuf, String>>,
}

#[allow(clippy::too_many_arguments)]
async fn run_analysis(
    shared: Arc<Shared>,
    tx: mpsc::UnboundedSender<Event>,
    options: Arc<Options>,
    project: Project,
    key: String,
    uri: Uri,
    generation: u64,
    snapshot: Snapshot,
    cancel: Arc<AtomicBool>,
    edited: bool,
) {
    // Wait for a slot; a run made obsolete meanwhile never starts (its result
    // would be discarded anyway). The edited document takes the edit slot
    // when it is free: it never waits behind other files.
    let edit_slot = if edited {
        shared.edit_slot.clone().try_acquire_owned().ok()
    } else {
        None
    };
    let _slot = match edit_slot {
        Some(s) => s,
        None => match shared.analysis_slots.clone().acquire_owned().await {
            Ok(s) => s,
            Err(_) => return,
        },
    };
    if cancel.load(Ordering::SeqCst) {
        return;
    }
    let cache = shared.cache.clone();
    let flag = cancel.clone();
    // Quick-fixes are never computed here: diagnostics first, fixes on
    // `textDocument/codeAction`.
    let run_options = Options {
        compute_fixes: false,
        ..Options::clone(&options)
    };
    let progress = Arc::new(Progress::with_findings());
    let counted = progress.clone();
    let handle = tokio::task::spawn_blocking(move || {
        std::panic::catch_unwind(AssertUnwindSafe(|| match &project.path {
            // A file: analysed in its project (headers, build flags, launch
            // sites), open buffers before the disk.
            Some(path) => {
                let a = syncscope_core::analysis::project::analyze(
                    path,
                    &snapshot.text,
                    Some(&snapshot.tree),
                    &run_options,
                    &project.search,
                    &Overlay {
                        buffers: &project.overlay,
                    },
                    &*cache,
                    Some(&flag),
                    Some(&counted),
                );
                (a.report, a.includes, a.fix_basis)
            }
            None => (
                syncscope_core::analyze_with_progress(
                    &snapshot.text,
                    &snapshot.tree,
                    &run_options,
                    &*cache,
                    Some(&flag),
                    &counted,
                ),
                Vec::new(),
                FixBasis::of_text(&snapshot.text, &run_options),
            ),
        }))
        .map_err(|p| panic_message(&*p))
    });
    let (done_tx, done_rx) = oneshot::channel::<()>();
    tokio::spawn(watch(
        shared.clone(),
        tx.clone(),
        key.clone(),
        generation,
        uri,
        progress,
        done_rx,
    ));
    let outcome = match handle.await {
        Ok(r) => r,
        Err(e) => Err(format!("analysis task failed: {e}")),
    };
    let _ = done_tx.send(());
    let _ = tx.send(Event::Finished {
        key,
        generation,
        options,
        outcome,
    });
}

/// Watches an analysis that outlives [`PROGRESS_AFTER`]: `$/progress`
/// (kernels verified of those to verify) when the client supports it, and
/// the findings so far published as they come.
async fn watch(
    shared: Arc<Shared>,
    tx: mpsc::UnboundedSender<Event>,
    key: String,
    generation: u64,
    uri: Uri,
    progress: Arc<Progress>,
    mut done: oneshot::Receiver<()>,
) {
    tokio::select! {
        _ = &mut done => return,
        _ = tokio::time::sleep(PROGRESS_AFTER) => {}
    }
    let client = shared.client.clone();
    let file = uri
        .path()
        .as_str()
        .rsplit('/')
        .next()
        .unwrap_or("")
        .to_string();
    let mut ongoing = None;
    if shared.supports_progress.load(Ordering::Relaxed) {
        let n = shared.progress_ids.fetch_add(1, Ordering::Relaxed);
        let token = NumberOrString::String(format!("syncscope/analysis/{n}"));
        let created = tokio::time::timeout(
            Duration::from_secs(5),
            client.send_request::<WorkDoneProgressCreate>(WorkDoneProgressCreateParams {
                token: token.clone(),
            }),
        )
        .await;
        if matches!(created, Ok(Ok(()))) {
            ongoing = Some(
                client
                    .progress(token, "Syncscope")
                    .with_message(format!("verifying {file}"))
                    .with_percentage(0)
                    .begin()
                    .await,
            );
        }
    }
    let mut published = (0, 0);
    loop {
        tokio::select! {
            _ = &mut done => break,
            _ = tokio::time::sleep(PROGRESS_EVERY) => {}
        }
        let (verified, total) = progress.counts();
        if let Some(o) = &ongoing {
            let percentage = (verified * 100).checked_div(total).unwrap_or(0) as u32;
            o.report_with_message(
                format!("verifying {file}: {verified}/{total} kernels"),
                percentage.min(100),
            )
            .await;
        }
        // A kernel finished, or one made known a verdict decided before its
        // queries (`Progress::kernel_known`).
        let now = (verified, progress.findings_kept());
        if now > published {
            published = now;
            let _ = tx.send(Event::Partial {
                key: key.clone(),
                generation,
                findings: progress.findings(),
            });
        }
    }
    if let Some(o) = ongoing {
        o.finish().await;
    }
}
