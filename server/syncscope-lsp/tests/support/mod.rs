//! A small JSON-RPC/LSP client for tests: Content-Length framing over any
//! async pipe, every wait bounded by a timeout so a test never hangs.
//!
//! Shared by the in-process tests of `syncscope-lsp` and the end-to-end tests
//! of the `syncscope` binary (`server/syncscope/tests/lsp_e2e.rs` includes it
//! with `#[path]`).
#![allow(dead_code)]

use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::time::{timeout_at, Instant};

/// What a spawned server writes on stderr, kept for the test instead of
/// printed: tests that feed bad input on purpose check the complaints they
/// cause, and the test command's log shows only real failures. Each line is
/// also written through the test harness's captured output (the harness
/// shows it for a test that fails).
#[derive(Clone, Default)]
pub struct ServerLog(std::sync::Arc<std::sync::Mutex<String>>);

impl ServerLog {
    /// Reads `stderr` to its end on a task of the current runtime.
    pub fn capture(stderr: impl AsyncRead + Unpin + Send + 'static) -> Self {
        let log = ServerLog::default();
        let sink = log.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                eprintln!("server stderr: {line}");
                let mut text = sink.0.lock().unwrap();
                text.push_str(&line);
                text.push('\n');
            }
        });
        log
    }

    /// Everything read so far.
    pub fn text(&self) -> String {
        self.0.lock().unwrap().clone()
    }

    /// Waits (bounded by [`TIMEOUT`]) until the server has written `needle`.
    pub async fn wait_for(&self, needle: &str) {
        let deadline = Instant::now() + TIMEOUT;
        while !self.text().contains(needle) {
            assert!(
                Instant::now() < deadline,
                "the server never wrote {needle:?} on stderr; it wrote:\n{}",
                self.text()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// Default bound on waiting for a response or a notification.
pub const TIMEOUT: Duration = Duration::from_secs(120);

pub struct LspClient {
    out: mpsc::UnboundedSender<Vec<u8>>,
    inbox: mpsc::UnboundedReceiver<Value>,
    /// Every notification (and server request) received, in order.
    pub log: Vec<Value>,
    responses: HashMap<i64, Value>,
    next_id: i64,
    pub timeout: Duration,
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut v = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    v.extend_from_slice(body);
    v
}

/// Reads one message. The framing is checked strictly — only
/// `Content-Length`/`Content-Type` headers, then exactly that many bytes of
/// JSON — since the server's output must be nothing but protocol. A
/// violation is returned as `Err` (and fails the test that waits next).
async fn read_message<R: AsyncRead + Unpin>(r: &mut BufReader<R>) -> Option<Result<Value, String>> {
    let mut len = None;
    loop {
        let mut line = Vec::new();
        if r.read_until(b'\n', &mut line).await.ok()? == 0 {
            return None;
        }
        let Ok(line) = String::from_utf8(line) else {
            return Some(Err("non-UTF-8 header line".into()));
        };
        if !line.ends_with("\r\n") {
            return Some(Err(format!("header line not ended by CRLF: {line:?}")));
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        match line.split_once(": ") {
            Some((name, value)) if name.eq_ignore_ascii_case("content-length") => {
                len = value.parse::<usize>().ok();
            }
            Some((name, _)) if name.eq_ignore_ascii_case("content-type") => {}
            _ => return Some(Err(format!("not a protocol header: {line:?}"))),
        }
    }
    let Some(len) = len else {
        return Some(Err("a header block without Content-Length".into()));
    };
    let mut body = vec![0; len];
    r.read_exact(&mut body).await.ok()?;
    Some(serde_json::from_slice(&body).map_err(|e| {
        format!(
            "server sent invalid JSON ({e}): {}",
            String::from_utf8_lossy(&body)
        )
    }))
}

impl LspClient {
    pub fn new<R, W>(reader: R, mut writer: W) -> LspClient
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Vec<u8>>();
        tokio::spawn(async move {
            while let Some(bytes) = out_rx.recv().await {
                if writer.write_all(&bytes).await.is_err() || writer.flush().await.is_err() {
                    break;
                }
            }
        });
        let (in_tx, in_rx) = mpsc::unbounded_channel();
        // Weak: dropping the client must close the server's input.
        let answer = out_tx.downgrade();
        tokio::spawn(async move {
            let mut r = BufReader::new(reader);
            while let Some(msg) = read_message(&mut r).await {
                let msg = match msg {
                    Ok(m) => m,
                    Err(violation) => json!({ "protocolViolation": violation }),
                };
                // Answer server→client requests (progress tokens, registrations,
                // refreshes) like a well-behaved client.
                if msg.get("method").is_some() {
                    if let Some(id) = msg.get("id") {
                        let resp = json!({ "jsonrpc": "2.0", "id": id, "result": null });
                        if let Some(answer) = answer.upgrade() {
                            let _ = answer.send(frame(resp.to_string().as_bytes()));
                        }
                    }
                }
                if in_tx.send(msg).is_err() {
                    break;
                }
            }
        });
        LspClient {
            out: out_tx,
            inbox: in_rx,
            log: Vec::new(),
            responses: HashMap::new(),
            next_id: 1,
            timeout: TIMEOUT,
        }
    }

    pub fn send_raw(&self, bytes: &[u8]) {
        let _ = self.out.send(bytes.to_vec());
    }

    pub fn send(&self, msg: &Value) {
        self.send_raw(&frame(msg.to_string().as_bytes()));
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and returns its id (see [`LspClient::response`]).
    pub fn send_request(&mut self, method: &str, params: Option<Value>) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({ "jsonrpc": "2.0", "id": id, "method": method });
        if let Some(p) = params {
            msg["params"] = p;
        }
        self.send(&msg);
        id
    }

    /// Pulls one message into the log / response table; false on timeout or EOF.
    async fn pump(&mut self, deadline: Instant) -> bool {
        match timeout_at(deadline, self.inbox.recv()).await {
            Ok(Some(msg)) => {
                if let Some(v) = msg.get("protocolViolation") {
                    panic!("the server's output is not pure protocol: {v}");
                }
                if msg.get("method").is_none() {
                    if let Some(id) = msg.get("id").and_then(Value::as_i64) {
                        self.responses.insert(id, msg);
                        return true;
                    }
                    // A response with a null id (e.g. to unparsable input).
                    self.log.push(msg);
                    return true;
                }
                self.log.push(msg);
                true
            }
            _ => false,
        }
    }

    /// The whole response message to request `id`.
    pub async fn response(&mut self, id: i64) -> Value {
        let deadline = Instant::now() + self.timeout;
        loop {
            if let Some(r) = self.responses.remove(&id) {
                return r;
            }
            if !self.pump(deadline).await {
                panic!(
                    "no response to request {id} within {:?}; last messages: {:#?}",
                    self.timeout,
                    self.log.iter().rev().take(5).collect::<Vec<_>>()
                );
            }
        }
    }

    /// Sends a request and returns its `result`, panicking on an error response.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, Some(params));
        let r = self.response(id).await;
        if let Some(e) = r.get("error") {
            panic!("{method} failed: {e}");
        }
        r["result"].clone()
    }

    /// The index the next logged message will have.
    pub fn mark(&self) -> usize {
        self.log.len()
    }

    /// Waits for a logged message at index ≥ `since` that satisfies `pred`.
    pub async fn wait_for(
        &mut self,
        since: usize,
        what: &str,
        pred: impl Fn(&Value) -> bool,
    ) -> (usize, Value) {
        let deadline = Instant::now() + self.timeout;
        let mut checked = since;
        loop {
            while checked < self.log.len() {
                if pred(&self.log[checked]) {
                    return (checked, self.log[checked].clone());
                }
                checked += 1;
            }
            if !self.pump(deadline).await {
                panic!(
                    "timed out waiting for {what}; last messages: {:#?}",
                    self.log.iter().rev().take(8).collect::<Vec<_>>()
                );
            }
        }
    }

    /// Drains whatever arrives within `d` into the log.
    pub async fn settle(&mut self, d: Duration) {
        let deadline = Instant::now() + d;
        while self.pump(deadline).await {}
    }

    /// Waits for the final `syncscope/status` of `uri` at `version` (logged at
    /// index ≥ `since`) and returns it with the diagnostics published for that
    /// version just before it.
    pub async fn wait_analysis(
        &mut self,
        since: usize,
        uri: &str,
        version: i64,
    ) -> (Value, Vec<Value>) {
        let (at, status) = self
            .wait_for(since, &format!("analysis of {uri} v{version}"), |m| {
                m["method"] == "syncscope/status"
                    && m["params"]["uri"] == uri
                    && m["params"]["version"] == version
                    && m["params"]["verdict"] != "analysing"
            })
            .await;
        let diags = self.log[..at]
            .iter()
            .rev()
            .find(|m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == uri
                    && m["params"]["version"] == version
            })
            .map(|m| {
                m["params"]["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .unwrap_or_else(|| panic!("no diagnostics published for {uri} v{version}"));
        (status["params"].clone(), diags)
    }

    /// `initialize` + `initialized`; returns the initialize result.
    pub async fn initialize(&mut self, root_uri: Option<&str>, extra: Value) -> Value {
        let mut params = json!({
            "processId": null,
            "rootUri": root_uri,
            "capabilities": {
                "window": { "workDoneProgress": true },
                "workspace": { "codeLens": { "refreshSupport": true } }
            }
        });
        if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
            for (k, v) in e {
                p.insert(k.clone(), v.clone());
            }
        }
        let r = self.request("initialize", params).await;
        self.notify("initialized", json!({}));
        r
    }

    pub fn did_open(&self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "cuda", "version": version, "text": text } }),
        );
    }

    pub fn did_change(&self, uri: &str, version: i64, changes: Value) {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": changes }),
        );
    }

    pub async fn shutdown_and_exit(&mut self) {
        let id = self.send_request("shutdown", None);
        let r = self.response(id).await;
        assert!(r.get("error").is_none(), "shutdown failed: {r}");
        self.notify("exit", Value::Null);
    }
}

/// Byte offset of an LSP position in ASCII/UTF-16 text (test texts are ASCII
/// where edits are applied).
pub fn offset_of(text: &str, pos: &Value) -> usize {
    let line = pos["line"].as_u64().unwrap() as usize;
    let ch = pos["character"].as_u64().unwrap() as usize;
    let mut off = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i == line {
            let content = l.trim_end_matches('\n');
            let units: Vec<(usize, char)> = content.char_indices().collect();
            let mut u = 0;
            for (b, c) in units {
                if u >= ch {
                    return off + b;
                }
                u += c.len_utf16();
            }
            return off + content.len();
        }
        off += l.len();
    }
    text.len()
}

/// Applies LSP text edits (non-overlapping) to `text`.
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            (
                offset_of(text, &e["range"]["start"]),
                offset_of(text, &e["range"]["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (s, e, t) in spans {
        out.replace_range(s..e, &t);
    }
    out
}

/// The edits as `contentChanges` of an incremental didChange (last position
/// first, so each range is valid in the text left by the previous ones).
pub fn edits_as_changes(edits: &[Value]) -> Value {
    let mut sorted = edits.to_vec();
    sorted.sort_by_key(|e| {
        let s = &e["range"]["start"];
        std::cmp::Reverse((s["line"].as_u64(), s["character"].as_u64()))
    });
    Value::Array(
        sorted
            .iter()
            .map(|e| json!({ "range": e["range"], "text": e["newText"] }))
            .collect(),
    )
}

/// A fresh temporary directory (for workspace roots).
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "syncscope-{name}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn file_uri(path: &std::path::Path) -> String {
    format!("file://{}", path.display())
}

/// The protocol abuse both the in-process and the stdio tests send: malformed
/// headers, invalid JSON, invalid messages, unknown methods, requests and
/// edits for unopened documents, out-of-range positions, invalid params, a
/// stray response and cancellation. `uri` is open; its text gets a last,
/// out-of-range edit to `version` (appending `// tail`). Checks every answer
/// the specification asks for, then that the server still answers requests.
pub async fn abuse(c: &mut LspClient, uri: &str, version: i64) {
    let since = c.mark();
    // Header blocks without a usable length are skipped (each ends in a
    // blank line, so the next message is framed again).
    c.send_raw(b"X-No-Length: 1\r\n\r\n");
    c.send_raw(b"Content-Length: abc\r\n\r\n");
    c.send_raw(b"Content-Length: -5\r\n\r\n");
    c.send_raw(b"garbage without a colon\r\n\r\n");
    c.send_raw(b"\r\n\r\n\r\n");
    // Not JSON first: its -32700 (id null) is checked below. Only the first
    // of several id-less invalid messages in a row is answered (see
    // docs/reliability.md, open bugs), so the others are checked for not
    // taking the server down.
    c.send_raw(b"Content-Length: 12\r\n\r\nthis is junk");
    let (_, parse_error) = c
        .wait_for(since, "parse error response", |m| {
            m["error"]["code"] == -32700
        })
        .await;
    assert_eq!(parse_error["id"], Value::Null);
    // Lower-case headers and a Content-Type are fine; `{}` is no message.
    c.send_raw(
        b"content-length: 2\r\ncontent-type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}",
    );
    // Not UTF-8, not an object, a bad method with an id.
    c.send_raw(b"Content-Length: 4\r\n\r\n\xff\xfe\xfd\xfc");
    c.send_raw(b"Content-Length: 7\r\n\r\n[1,2,3]");
    c.send_raw(b"Content-Length: 36\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":5}");
    let r = c.response(77).await;
    assert_eq!(r["error"]["code"], -32600, "invalid request: {r}");
    // Unknown methods: an error for a request, silence for a notification.
    c.notify("syncscope/noSuchNotification", json!({}));
    c.notify("$/noSuchNotification", json!({ "x": 1 }));
    let id = c.send_request("syncscope/noSuchMethod", Some(json!({})));
    assert_eq!(c.response(id).await["error"]["code"], -32601);
    // A response to a request the server never made; a cancellation of a
    // request that does not exist.
    c.send(&json!({ "jsonrpc": "2.0", "id": 987654, "result": null }));
    c.notify("$/cancelRequest", json!({ "id": 123456 }));
    // Documents that are not open.
    let nowhere = "file:///tmp/syncscope-abuse/not-open.cu";
    let zero = json!({ "line": 0, "character": 0 });
    let r = c
        .request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": nowhere }, "position": zero }),
        )
        .await;
    assert_eq!(r, Value::Null);
    let r = c
        .request(
            "textDocument/codeAction",
            json!({ "textDocument": { "uri": nowhere }, "range": { "start": zero, "end": zero }, "context": { "diagnostics": [] } }),
        )
        .await;
    assert!(r.is_null() || r == json!([]), "{r}");
    let r = c
        .request(
            "textDocument/codeLens",
            json!({ "textDocument": { "uri": nowhere } }),
        )
        .await;
    assert!(r.is_null() || r == json!([]), "{r}");
    c.did_change(
        nowhere,
        2,
        json!([{ "range": { "start": zero, "end": zero }, "text": "x" }]),
    );
    c.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": nowhere } }),
    );
    // Out-of-range positions everywhere.
    let far = json!({ "line": 4000000000u64, "character": 4000000000u64 });
    c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": far }),
    )
    .await;
    c.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": { "start": far, "end": zero }, "context": { "diagnostics": [] } }),
    )
    .await;
    // Invalid params for a known method.
    let id = c.send_request("textDocument/hover", Some(json!({ "bogus": true })));
    let r = c.response(id).await;
    assert_eq!(r["error"]["code"], -32602, "invalid params: {r}");
    c.did_change(
        uri,
        version,
        json!([{ "range": { "start": far, "end": far }, "text": "\n// tail\n" }]),
    );
    // Still answering.
    let stats = c.request("syncscope/stats", Value::Null).await;
    for key in [
        "queriesRun",
        "queriesReused",
        "kernelsAnalysed",
        "kernelsReused",
    ] {
        assert!(stats[key].is_u64(), "{key} in {stats}");
    }
}
