//! The Syncscope language server.
//!
//! Built on [`tower_lsp_server`] 0.22, the community-maintained fork of
//! `tower-lsp` that re-exports `lsp-types` (as `tower_lsp_server::lsp_types`).
//!
//! Architecture:
//! - [`document`]: text + line index + tree-sitter tree of an open document,
//!   and the application of incremental changes (pure, unit-tested);
//! - [`server`]: the `LanguageServer` implementation. Notification handlers
//!   apply edits synchronously (tower-lsp may run handlers concurrently,
//!   tower-lsp issue 284) and hand snapshots to the actor;
//! - [`actor`]: one task that schedules analyses (debounce, cancellation of
//!   obsolete runs, blocking threads) and publishes their results;
//! - [`config`]: `syncscope.toml` and client settings;
//! - [`to_proto`] / [`from_proto`]: conversions; [`hover`]: hover texts.
//!
//! Architecture Invariant: the server writes no files and runs nothing from
//! the workspace; stdout carries only the protocol (logs go to stderr or
//! `window/logMessage`).

pub mod actor;
pub mod config;
pub mod document;
pub mod framing;
pub mod from_proto;
pub mod hover;
pub mod server;
pub mod to_proto;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tower_lsp_server::{LspService, Server as LspServer};

/// Serves the protocol on `input`/`output` until `exit` (or the end of the
/// input). Returns whether `shutdown` was received before.
pub async fn serve<I, O>(input: I, output: O) -> bool
where
    I: AsyncRead + Unpin,
    O: AsyncWrite,
{
    let shutdown = Arc::new(AtomicBool::new(false));
    let flag = shutdown.clone();
    let (service, socket) = LspService::build(move |client| server::Server::new(client, flag))
        .custom_method("syncscope/stats", server::Server::stats)
        .custom_method(framing::INVALID_METHOD, server::Server::invalid_message)
        .finish();
    // Malformed input would end tower-lsp's reader: sanitise it first.
    let (clean_reader, clean_writer) = tokio::io::duplex(1 << 16);
    let serving = LspServer::new(clean_reader, output, socket).serve(service);
    let pumping = framing::pump(input, clean_writer);
    tokio::pin!(serving, pumping);
    tokio::select! {
        _ = &mut serving => {}
        _ = &mut pumping => {
            // End of input: the server sees EOF and stops.
            serving.await;
        }
    }
    shutdown.load(Ordering::SeqCst)
}

/// Runs the server on stdin/stdout. Returns the process exit code: 0 when
/// `exit` followed `shutdown`, 1 otherwise.
pub fn run_stdio() -> i32 {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("syncscope-lsp")
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("syncscope lsp: cannot start the async runtime: {e}");
            return 1;
        }
    };
    let clean = runtime.block_on(serve(tokio::io::stdin(), tokio::io::stdout()));
    // Don't wait for the blocking stdin reader or analyses still running.
    runtime.shutdown_timeout(Duration::from_millis(100));
    if clean {
        0
    } else {
        1
    }
}
