//! Conversions from LSP types: position encoding, workspace root, changes.

use crate::document::Encoding;
use std::path::PathBuf;
use tower_lsp_server::lsp_types::{
    InitializeParams, PositionEncodingKind, TextDocumentContentChangeEvent, Uri,
};
use tower_lsp_server::UriExt;

/// UTF-8 when the client offers it, else the UTF-16 default.
pub fn encoding(params: &InitializeParams) -> Encoding {
    let offered = params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref());
    match offered {
        Some(list) if list.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
        _ => Encoding::Utf16,
    }
}

pub fn encoding_kind(e: Encoding) -> PositionEncodingKind {
    match e {
        Encoding::Utf8 => PositionEncodingKind::UTF8,
        Encoding::Utf16 => PositionEncodingKind::UTF16,
    }
}

/// The workspace root: the first workspace folder, else `rootUri`.
#[allow(deprecated)]
pub fn root(params: &InitializeParams) -> Option<PathBuf> {
    let uri = params
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .map(|f| &f.uri)
        .or(params.root_uri.as_ref())?;
    uri.to_file_path().map(|p| p.into_owned())
}

/// Whether the client can create work-done progress tokens.
pub fn supports_progress(params: &InitializeParams) -> bool {
    params
        .capabilities
        .window
        .as_ref()
        .and_then(|w| w.work_done_progress)
        .unwrap_or(false)
}

/// Whether the client accepts `workspace/codeLens/refresh`.
pub fn supports_lens_refresh(params: &InitializeParams) -> bool {
    params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.code_lens.as_ref())
        .and_then(|c| c.refresh_support)
        .unwrap_or(false)
}

/// Whether the client runs the "Compare with…" lens itself: it announces
/// `experimental.compareLens` and has a client-side command
/// (`COMPARE_LENS_COMMAND`) that picks the other kernel and then asks the
/// server's `syncscope.compareWith`. Picking a kernel needs a user interface
/// LSP does not have, so a client without one gets no such lens (running
/// it would fail).
pub fn supports_compare_lens(params: &InitializeParams) -> bool {
    params
        .capabilities
        .experimental
        .as_ref()
        .and_then(|e| e.get("compareLens"))
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

/// Whether `workspace/didChangeWatchedFiles` may be registered dynamically.
pub fn supports_watch_registration(params: &InitializeParams) -> bool {
    params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|c| c.dynamic_registration)
        .unwrap_or(false)
}

/// The content changes as (range, text) pairs for [`crate::document::Document`].
pub fn changes(
    events: &[TextDocumentContentChangeEvent],
) -> impl Iterator<Item = (Option<tower_lsp_server::lsp_types::Range>, &str)> {
    events.iter().map(|c| (c.range, c.text.as_str()))
}

/// The key of a document in the server's maps.
pub fn key(uri: &Uri) -> String {
    uri.as_str().to_string()
}

/// The normalized file path of a `file:` URI.
pub fn file_path(uri: &Uri) -> Option<PathBuf> {
    uri.to_file_path()
        .map(|p| syncscope_core::project::compile_commands::normalize(&p))
}

/// Whether the URI names the configuration file.
pub fn is_config(uri: &Uri) -> bool {
    uri.path()
        .as_str()
        .ends_with(&format!("/{}", crate::config::FILE_NAME))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp_server::lsp_types::{ClientCapabilities, GeneralClientCapabilities};

    #[test]
    fn negotiates_utf8_only_when_offered() {
        let mut p = InitializeParams::default();
        assert_eq!(encoding(&p), Encoding::Utf16);
        p.capabilities = ClientCapabilities {
            general: Some(GeneralClientCapabilities {
                position_encodings: Some(vec![
                    PositionEncodingKind::UTF16,
                    PositionEncodingKind::UTF8,
                ]),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert_eq!(encoding(&p), Encoding::Utf8);
        assert_eq!(encoding_kind(Encoding::Utf8).as_str(), "utf-8");
    }

    #[test]
    #[allow(deprecated)]
    fn root_from_folders_or_root_uri() {
        let mut p = InitializeParams::default();
        assert_eq!(root(&p), None);
        p.root_uri = Some("file:///tmp/ws".parse().unwrap());
        assert_eq!(root(&p), Some(PathBuf::from("/tmp/ws")));
        assert!(is_config(&"file:///tmp/ws/syncscope.toml".parse().unwrap()));
        assert!(!is_config(&"file:///tmp/ws/k.cu".parse().unwrap()));
    }
}
