//! The `LanguageServer` implementation: documents, configuration, and the
//! requests answered from the latest analysis.

use crate::actor::{self, Event, Shared};
use crate::config::{self, Settings};
use crate::document::{Document, Encoding};
use crate::from_proto;
use crate::hover;
use crate::to_proto::{self, COMPARE_COMMAND, VERIFY_COMMAND};
use dashmap::DashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::lsp_types::*;
use tower_lsp_server::{Client, LanguageServer, UriExt};

#[derive(Default)]
struct ConfigState {
    root: Option<PathBuf>,
    file: Settings,
    client: Settings,
    /// Errors of the configuration file, published on its URI.
    file_diagnostics: Vec<Diagnostic>,
}

pub struct Server {
    client: Client,
    shared: Arc<Shared>,
    tx: mpsc::UnboundedSender<Event>,
    docs: DashMap<String, Document>,
    /// Open `syncscope.toml` buffers (text only).
    config_docs: DashMap<String, String>,
    encoding: Mutex<Encoding>,
    config: Mutex<ConfigState>,
    shutdown: Arc<AtomicBool>,
    watch_registration: AtomicBool,
}

impl Server {
    pub fn new(client: Client, shutdown: Arc<AtomicBool>) -> Server {
        let shared = Arc::new(Shared::new(client.clone()));
        let tx = actor::spawn(shared.clone());
        Server {
            client,
            shared,
            tx,
            docs: DashMap::new(),
            config_docs: DashMap::new(),
            encoding: Mutex::new(Encoding::Utf16),
            config: Mutex::default(),
            shutdown,
            watch_registration: AtomicBool::new(false),
        }
    }

    fn encoding(&self) -> Encoding {
        *self.encoding.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `syncscope/stats`: cumulative query and kernel counters.
    pub async fn stats(&self) -> Result<serde_json::Value> {
        let mut v = to_proto::stats(&self.shared.stats());
        v["fixRequestsCancelled"] = self.shared.fixes_cancelled.load(Ordering::Relaxed).into();
        Ok(v)
    }

    /// Stand-in for a malformed message (see [`crate::framing`]): answers
    /// with the JSON-RPC error and logs it.
    pub async fn invalid_message(&self, params: serde_json::Value) -> Result<()> {
        let reason = params["reason"].as_str().unwrap_or("malformed message");
        self.client
            .log_message(
                MessageType::ERROR,
                format!("syncscope: ignored a malformed message: {reason}"),
            )
            .await;
        if params["kind"] == "parse" {
            Err(Error::parse_error())
        } else {
            Err(Error::invalid_request())
        }
    }

    fn send(&self, ev: Event) {
        // The actor lives as long as the runtime; a failed send means shutdown.
        let _ = self.tx.send(ev);
    }

    fn config_uri(&self) -> Option<Uri> {
        let cfg = self.config.lock().unwrap_or_else(|e| e.into_inner());
        let root = cfg.root.as_ref()?;
        Uri::from_file_path(root.join(config::FILE_NAME))
    }

    /// Whether `uri` is the root's `syncscope.toml` (the only config file read).
    fn is_root_config(&self, uri: &Uri) -> bool {
        from_proto::is_config(uri)
            && self
                .config_uri()
                .is_some_and(|c| c.as_str() == uri.as_str())
    }

    /// Re-reads the configuration file (the open buffer if any, else the file
    /// under the root), updates the effective configuration and hands it to
    /// the actor while the configuration lock is held: configurations reach
    /// the actor in the order they were made, and in order with the edits
    /// queued before and after (nothing is awaited in between).
    fn reload_file_config(&self) {
        let uri = self.config_uri();
        let buffer = uri
            .as_ref()
            .and_then(|u| self.config_docs.get(u.as_str()).map(|t| t.clone()));
        let mut cfg = self.config.lock().unwrap_or_else(|e| e.into_inner());
        let text = buffer.or_else(|| {
            let path = config::file_path(cfg.root.as_ref()?)?;
            std::fs::read_to_string(path).ok()
        });
        cfg.file_diagnostics.clear();
        cfg.file = match text.as_deref().map(config::parse_file) {
            None => Settings::default(),
            Some(Ok(s)) => s,
            Some(Err(e)) => {
                let text = text.as_deref().unwrap_or("");
                let index = crate::document::LineIndex::new(text);
                let src = to_proto::Source {
                    text,
                    index: &index,
                    encoding: self.encoding(),
                };
                let range = e
                    .range
                    .map(|r| src.offset_range(r.start, r.end))
                    .unwrap_or_default();
                cfg.file_diagnostics
                    .push(to_proto::config_diagnostic(range, &e.message));
                Settings::default()
            }
        };
        self.send(Event::Config(config::resolve(
            &cfg.file,
            &cfg.client,
            cfg.root.as_deref(),
        )));
    }

    async fn publish_config_diagnostics(&self) {
        let Some(uri) = self.config_uri() else {
            return;
        };
        let diags = self
            .config
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .file_diagnostics
            .clone();
        self.client.publish_diagnostics(uri, diags, None).await;
    }

    async fn config_file_changed(&self) {
        self.reload_file_config();
        self.publish_config_diagnostics().await;
    }

    /// The condition on its kernel's parameters under which race `f` (of
    /// `analysis`) can happen: computed with the quick-fixes' machinery on
    /// the hover that asks for it (the analysis publishes diagnostics
    /// first and computes none), off the async threads; a newer edit of
    /// the document stops the work.
    async fn race_condition(
        &self,
        uri: &Uri,
        analysis: &Arc<actor::Analysis>,
        f: &syncscope_core::Finding,
    ) -> Option<syncscope_core::RaceCondition> {
        let flag = self.shared.edit_flag(&from_proto::key(uri));
        let (a, cache, wanted) = (analysis.clone(), self.shared.cache.clone(), vec![f.clone()]);
        tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                syncscope_core::analysis::race_conditions(
                    &a.text,
                    &a.tree,
                    &a.options,
                    &*cache,
                    Some(&flag),
                    &wanted,
                )
            }))
            .ok()
        })
        .await
        .ok()
        .flatten()
        .and_then(|mut c| c.pop())
        .flatten()
    }

    /// The latest analysis of `uri` if it is of the document's current version.
    fn current_analysis(&self, uri: &Uri) -> Option<Arc<actor::Analysis>> {
        let key = from_proto::key(uri);
        let doc = self.docs.get(&key)?;
        let analysis = self.shared.results.get(&key)?.clone();
        (analysis.version == doc.version).then_some(analysis)
    }

    /// `syncscope.compareWith [uriA, kernelA, uriB, kernelB, {"assoc":
    /// bool}?]`: `syncscope equiv` on two kernels, each file analysed in its
    /// project as the server verifies it (the workspace's settings, headers,
    /// build flags, launch sites; open documents as edited, other files from
    /// disk, read on the blocking thread with the analysis); `assoc` as
    /// `--assoc`.
    async fn compare(&self, args: &[LSPAny]) -> Result<LSPAny> {
        let arg = |i: usize| args.get(i).and_then(|a| a.as_str()).map(str::to_string);
        let (Some(ua), Some(ka), Some(ub), Some(kb)) = (arg(0), arg(1), arg(2), arg(3)) else {
            return Err(Error::invalid_params(
                "expected [uriA, kernelA, uriB, kernelB] (strings)",
            ));
        };
        let equiv = syncscope_core::equiv::EquivOptions {
            assoc: args
                .get(4)
                .and_then(|o| o.get("assoc"))
                .and_then(|v| v.as_bool())
                .unwrap_or(false),
        };
        // Each version: its path (a file) and the open document's text.
        let mut files = Vec::new();
        for u in [&ua, &ub] {
            let uri = u
                .parse::<Uri>()
                .map_err(|_| Error::invalid_params(format!("not a URI: {u}")))?;
            let open = self
                .docs
                .get(&from_proto::key(&uri))
                .map(|d| d.text().to_string());
            let path = from_proto::file_path(&uri);
            if open.is_none() && path.is_none() {
                return Err(Error::invalid_params(format!("not a file: {u}")));
            }
            files.push((path, open));
        }
        // The workspace's settings, as the actor's analyses use them.
        let effective = {
            let cfg = self.config.lock().unwrap_or_else(|e| e.into_inner());
            config::resolve(&cfg.file, &cfg.client, cfg.root.as_deref())
        };
        let overlay: std::collections::HashMap<PathBuf, String> = self
            .docs
            .iter()
            .filter_map(|d| {
                let uri = d.key().parse::<Uri>().ok()?;
                Some((from_proto::file_path(&uri)?, d.value().text().to_string()))
            })
            .collect();
        let report = tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let sources = syncscope_core::project::Overlay { buffers: &overlay };
                let mut texts = Vec::new();
                for (path, open) in &files {
                    let text = match (open, path) {
                        (Some(t), _) => t.clone(),
                        (None, Some(p)) => syncscope_core::project::Sources::read(&sources, p)
                            .ok_or_else(|| format!("cannot read {}", p.display()))?,
                        (None, None) => return Err("not a file".to_string()),
                    };
                    texts.push(text);
                }
                let a = syncscope_core::equiv::Version {
                    label: &ua,
                    path: files[0].0.as_deref(),
                    text: &texts[0],
                    kernel: &ka,
                    options: &effective.options,
                    search: &effective.search,
                };
                let b = syncscope_core::equiv::Version {
                    label: &ub,
                    path: files[1].0.as_deref(),
                    text: &texts[1],
                    kernel: &kb,
                    options: &effective.options,
                    search: &effective.search,
                };
                let report =
                    syncscope_core::equiv::check_equivalence_with(&a, &b, &sources, &equiv);
                Ok(report.to_json(&format!("{ua}:{ka}"), &format!("{ub}:{kb}")))
            }))
        })
        .await;
        match report {
            Ok(Ok(Ok(v))) => Ok(v),
            Ok(Ok(Err(e))) => Err(Error::invalid_params(e)),
            _ => Err(Error::internal_error()),
        }
    }

    fn offset_in(&self, uri: &Uri, pos: Position) -> Option<usize> {
        let doc = self.docs.get(&from_proto::key(uri))?;
        Some(doc.offset(pos, self.encoding()))
    }
}

impl LanguageServer for Server {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let encoding = from_proto::encoding(&params);
        *self.encoding.lock().unwrap_or_else(|e| e.into_inner()) = encoding;
        self.shared
            .supports_progress
            .store(from_proto::supports_progress(&params), Ordering::Relaxed);
        self.shared.supports_lens_refresh.store(
            from_proto::supports_lens_refresh(&params),
            Ordering::Relaxed,
        );
        self.shared.supports_compare_lens.store(
            from_proto::supports_compare_lens(&params),
            Ordering::Relaxed,
        );
        self.watch_registration.store(
            from_proto::supports_watch_registration(&params),
            Ordering::Relaxed,
        );
        let client_settings = match params.initialization_options.as_ref() {
            Some(v) => match config::read_client(v) {
                Ok(c) => {
                    for w in c.warnings() {
                        self.client.log_message(MessageType::WARNING, w).await;
                    }
                    c.settings
                }
                Err(e) => {
                    eprintln!("syncscope: ignoring initializationOptions: {e}");
                    Settings::default()
                }
            },
            None => Settings::default(),
        };
        {
            let mut cfg = self.config.lock().unwrap_or_else(|e| e.into_inner());
            cfg.root = from_proto::root(&params);
            cfg.client = client_settings;
        }
        self.reload_file_config();

        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(from_proto::encoding_kind(encoding)),
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                        ..Default::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                code_action_provider: Some(CodeActionProviderCapability::Options(
                    CodeActionOptions {
                        code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                        ..Default::default()
                    },
                )),
                code_lens_provider: Some(CodeLensOptions {
                    resolve_provider: Some(false),
                }),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec![VERIFY_COMMAND.to_string(), COMPARE_COMMAND.to_string()],
                    ..Default::default()
                }),
                ..Default::default()
            },
            server_info: Some(ServerInfo {
                name: "syncscope".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        self.client
            .log_message(MessageType::INFO, "syncscope language server ready")
            .await;
        self.publish_config_diagnostics().await;
        if self.watch_registration.load(Ordering::Relaxed) {
            let client = self.client.clone();
            // A request to the client: don't hold a handler slot waiting for it.
            tokio::spawn(async move {
                let options = DidChangeWatchedFilesRegistrationOptions {
                    watchers: vec![
                        FileSystemWatcher {
                            glob_pattern: GlobPattern::String(format!("**/{}", config::FILE_NAME)),
                            kind: None,
                        },
                        // Headers and sources: documents that include them follow.
                        FileSystemWatcher {
                            glob_pattern: GlobPattern::String(
                                "**/*.{cu,cuh,h,hpp,hh,inl}".to_string(),
                            ),
                            kind: None,
                        },
                    ],
                };
                let _ = client
                    .register_capability(vec![Registration {
                        id: "syncscope-config-watch".to_string(),
                        method: "workspace/didChangeWatchedFiles".to_string(),
                        register_options: serde_json::to_value(options).ok(),
                    }])
                    .await;
            });
        }
    }

    async fn shutdown(&self) -> Result<()> {
        self.shutdown.store(true, Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        if from_proto::is_config(&doc.uri) {
            if self.is_root_config(&doc.uri) {
                self.config_docs.insert(from_proto::key(&doc.uri), doc.text);
                self.config_file_changed().await;
            }
            return;
        }
        // Synchronous: no `.await` between applying the text and queuing the event.
        let document = Document::new(doc.text, doc.version);
        let snapshot = document.snapshot();
        let key = from_proto::key(&doc.uri);
        self.shared.edited(&key);
        self.docs.insert(key, document);
        self.send(Event::Changed {
            uri: doc.uri,
            snapshot,
            encoding: self.encoding(),
            edited: false,
        });
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let version = params.text_document.version;
        let key = from_proto::key(&uri);
        let encoding = self.encoding();
        if from_proto::is_config(&uri) {
            let updated = self.config_docs.get_mut(&key).map(|mut text| {
                crate::document::apply_text_changes(
                    &mut text,
                    from_proto::changes(&params.content_changes),
                    encoding,
                );
            });
            if updated.is_some() {
                self.config_file_changed().await;
            }
            return;
        }
        // Apply the edit synchronously under the map's entry lock, released
        // before anything is awaited: edits stay in arrival order.
        let snapshot = {
            let Some(mut doc) = self.docs.get_mut(&key) else {
                eprintln!("syncscope: didChange for a document that is not open: {key}");
                return;
            };
            doc.apply_changes(
                from_proto::changes(&params.content_changes),
                version,
                encoding,
            );
            doc.snapshot()
        };
        self.shared.edited(&key);
        self.send(Event::Changed {
            uri,
            snapshot,
            encoding,
            edited: true,
        });
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        if self.is_root_config(&params.text_document.uri) {
            self.config_file_changed().await;
            return;
        }
        // A saved header: the open documents including it are re-verified.
        if let Some(path) = from_proto::file_path(&params.text_document.uri) {
            self.send(Event::FilesChanged { paths: vec![path] });
        }
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        let key = from_proto::key(&uri);
        if self.config_docs.remove(&key).is_some() {
            self.config_file_changed().await;
            return;
        }
        if self.docs.remove(&key).is_some() {
            self.shared.edited(&key);
            self.send(Event::Closed { uri });
        }
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        match config::read_client(&params.settings) {
            Ok(client) => {
                let warnings = client.warnings();
                {
                    // Sent under the lock, like `reload_file_config`.
                    let mut cfg = self.config.lock().unwrap_or_else(|e| e.into_inner());
                    cfg.client = client.settings;
                    self.send(Event::Config(config::resolve(
                        &cfg.file,
                        &cfg.client,
                        cfg.root.as_deref(),
                    )));
                }
                for w in warnings {
                    self.client.log_message(MessageType::WARNING, w).await;
                }
            }
            Err(e) => {
                self.client.show_message(MessageType::ERROR, &e).await;
                self.client.log_message(MessageType::ERROR, e).await;
            }
        }
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        if params.changes.iter().any(|c| self.is_root_config(&c.uri)) {
            self.config_file_changed().await;
        }
        // Headers edited outside the editor (or by another tool).
        let paths: Vec<_> = params
            .changes
            .iter()
            .filter(|c| !from_proto::is_config(&c.uri))
            .filter_map(|c| from_proto::file_path(&c.uri))
            .collect();
        if !paths.is_empty() {
            self.send(Event::FilesChanged { paths });
        }
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let pos = params.text_document_position_params;
        let uri = pos.text_document.uri;
        let Some(analysis) = self.current_analysis(&uri) else {
            return Ok(None);
        };
        let Some(offset) = self.offset_in(&uri, pos.position) else {
            return Ok(None);
        };
        let offset = offset as u32;
        let src = analysis.source();
        let width = |s: &syncscope_core::Span| s.end.offset.saturating_sub(s.start.offset);
        // The narrowest finding under the cursor, then its related locations.
        let finding = analysis
            .findings
            .iter()
            .filter(|f| f.span.contains(offset))
            .min_by_key(|f| width(&f.span))
            .map(|f| (f, f.span))
            .or_else(|| {
                analysis.findings.iter().find_map(|f| {
                    f.related
                        .iter()
                        .find(|r| r.span.contains(offset))
                        .map(|r| (f, r.span))
                })
            });
        if let Some((f, span)) = finding {
            let mut f = f.clone();
            if f.kind == syncscope_core::FindingKind::DataRace
                && f.race_condition.is_none()
                && analysis.options.compute_fixes
            {
                f.race_condition = self.race_condition(&uri, &analysis, &f).await;
            }
            return Ok(Some(Hover {
                contents: HoverContents::Markup(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: hover::finding_markdown(&f)
                        + &hover::finding_launch_note(&f, &analysis.kernels),
                }),
                range: Some(src.range(span)),
            }));
        }
        if let Some(k) = analysis.kernels.iter().find(|k| k.span.contains(offset)) {
            return Ok(Some(Hover {
                contents: HoverContents::Markup(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: hover::kernel_markdown(k, &analysis.findings, &analysis.options),
                }),
                range: Some(src.range(k.span)),
            }));
        }
        Ok(None)
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        if let Some(only) = &params.context.only {
            if !only
                .iter()
                .any(|k| CodeActionKind::QUICKFIX.as_str().starts_with(k.as_str()))
            {
                return Ok(None);
            }
        }
        let uri = params.text_document.uri;
        let Some(analysis) = self.current_analysis(&uri) else {
            return Ok(None);
        };
        let (Some(start), Some(end)) = (
            self.offset_in(&uri, params.range.start),
            self.offset_in(&uri, params.range.end),
        ) else {
            return Ok(None);
        };
        let (start, end) = (start.min(end) as u32, start.max(end) as u32);
        let here: Vec<usize> = (0..analysis.findings.len())
            .filter(|&i| {
                let f = &analysis.findings[i];
                f.span.start.offset <= end && start <= f.span.end.offset
            })
            .collect();
        if here.is_empty() || !analysis.options.compute_fixes {
            return Ok(Some(Vec::new()));
        }
        // Fixes are computed now, for these findings only, off the async
        // threads; a newer edit of the document stops the work.
        let key = from_proto::key(&uri);
        let flag = self.shared.edit_flag(&key);
        let wanted: Vec<syncscope_core::Finding> =
            here.iter().map(|&i| analysis.findings[i].clone()).collect();
        let (a, cache, stop) = (analysis.clone(), self.shared.cache.clone(), flag.clone());
        let fixes = tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                // The unit and launches the diagnostics came from, so
                // that the fixes are those `check --fixes` finds.
                syncscope_core::analysis::project::quick_fixes(
                    &a.fix_basis,
                    &*cache,
                    Some(&stop),
                    &wanted,
                )
            }))
            .unwrap_or_default()
        })
        .await
        .unwrap_or_default();
        if flag.load(Ordering::SeqCst) {
            self.shared.fixes_cancelled.fetch_add(1, Ordering::Relaxed);
            return Err(Error::content_modified());
        }
        let src = analysis.source();
        let actions: CodeActionResponse = here
            .iter()
            .zip(&fixes)
            .flat_map(|(&i, fixes)| {
                to_proto::code_actions(&uri, src, fixes, &analysis.diagnostics[i])
            })
            .map(CodeActionOrCommand::CodeAction)
            .collect();
        Ok(Some(actions))
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let uri = params.text_document.uri;
        let Some(analysis) = self.current_analysis(&uri) else {
            return Ok(None);
        };
        let src = analysis.source();
        let compare = self.shared.supports_compare_lens.load(Ordering::Relaxed);
        Ok(Some(
            analysis
                .kernels
                .iter()
                .flat_map(|k| {
                    let verdict = to_proto::code_lens(&uri, src, k, &analysis.findings);
                    let other = compare.then(|| to_proto::compare_lens(&uri, src, k));
                    std::iter::once(verdict).chain(other)
                })
                .collect(),
        ))
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        if params.command == COMPARE_COMMAND {
            return self.compare(&params.arguments).await.map(Some);
        }
        if params.command != VERIFY_COMMAND {
            return Err(Error::invalid_params(format!(
                "unknown command `{}`",
                params.command
            )));
        }
        let uri = params
            .arguments
            .first()
            .and_then(|a| a.as_str())
            .and_then(|s| s.parse::<Uri>().ok())
            .ok_or_else(|| Error::invalid_params("expected a document URI string"))?;
        if !self.docs.contains_key(&from_proto::key(&uri)) {
            return Err(Error::invalid_params(format!(
                "document not open: {}",
                uri.as_str()
            )));
        }
        self.send(Event::Reanalyse { uri: Some(uri) });
        Ok(None)
    }
}
