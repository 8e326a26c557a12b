//! The bodies of the fuzz targets, shared by the `cargo fuzz` project in
//! `tests/fuzz` (nightly or `RUSTC_BOOTSTRAP=1`, run by `.ci/fuzz`) and by the
//! stable test `tests/fuzz_fallback.rs`, which drives them over the seed
//! corpus and deterministic mutations of it. Each body panics when a property
//! fails; a panic is what a fuzzer reports as a crash.
//!
//! - [`analyze_bytes`]: arbitrary bytes → decode → parse → model → verify;
//! - [`edit_sequence`]: arbitrary edits applied to a document: the
//!   incremental tree equals a fresh parse of the final text, and the final
//!   diagnostics (analysed with the query cache the edits warmed) equal those
//!   of a fresh analysis;
//! - [`protocol`]: arbitrary bytes through the server's framing layer, and
//!   arbitrary JSON-RPC messages into a running server, which must still
//!   answer a request afterwards and stop on `shutdown` + `exit`.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;
use syncscope_core::{FileReport, FindingKind, KernelStatus, MemoryCache, Options};
use syncscope_lsp::document::{Document, Encoding};
use tower_lsp_server::lsp_types::{Position, Range, Uri};

/// Options of every fuzz analysis: a small budget keeps runs fast. The
/// budget is Z3 resource units, as in the product, so that the incremental
/// and the fresh analysis of one text reach the same verdicts: a wall-clock
/// limit strikes one of them and not the other on a loaded machine, and a
/// redundancy query cut short leaves its barrier unreported without an
/// `unknown` (the edits target saw that as differing diagnostics). The
/// wall-clock nets stay far beyond what the units take.
pub fn fuzz_options() -> Options {
    Options {
        rlimit: FUZZ_RLIMIT,
        timeout_ms: 20_000,
        kernel_budget_ms: 20_000,
        ..Options::default()
    }
}

/// Z3 resource units per query and per kernel in the fuzz analyses (a few
/// hundred milliseconds of solving on most kernels, a few seconds on the
/// nonlinear ones, whose units cost more time).
const FUZZ_RLIMIT: u32 = 500_000;

/// Runs `f` on a thread with a large stack, like the analysis threads of the
/// product (the fuzzer's own thread may be smaller); panics propagate.
fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        let h = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn_scoped(s, f)
            .expect("spawn a fuzz thread");
        match h.join() {
            Ok(v) => v,
            Err(p) => std::panic::resume_unwind(p),
        }
    })
}

// ---------------------------------------------------------------- target (a)

/// Target (a): arbitrary bytes as a source file.
pub fn analyze_bytes(data: &[u8]) {
    let text = match syncscope::cli::decode_source("fuzz.cu", data.to_vec()) {
        Ok(t) => t,
        Err(msg) => {
            // The CLI refuses the file with a message naming it; the rest of
            // the pipeline still gets the bytes (lossily) for coverage.
            assert!(
                msg.contains("`fuzz.cu`") && (msg.contains("binary") || msg.contains("UTF-8")),
                "unclear refusal: {msg}"
            );
            String::from_utf8_lossy(data).replace('\0', " ")
        }
    };
    analyze_text(&text);
}

/// Parses, lowers, renders and verifies `text`, checking the report.
pub fn analyze_text(text: &str) -> FileReport {
    let options = fuzz_options();
    let tree = syncscope_core::parse(text, None);
    on_big_stack(|| {
        // Outside the core's panic guard, so that a front-end panic is a crash.
        let opts = syncscope_core::options::with_file_directives(text, &options);
        for k in syncscope_core::frontend::lower_file(text, &tree, &opts) {
            let _ = syncscope_core::model::render(&k);
        }
    });
    let report = syncscope_core::analyze(text, &tree, &options, &MemoryCache::default(), None);
    check_report(text, &report);
    report
}

/// Properties every report has: no internal error (a panic the core caught),
/// spans inside the text, and "verified" only for kernels without an error,
/// unknown or not-verified finding.
pub fn check_report(text: &str, report: &FileReport) {
    let len = text.len() as u32;
    for f in &report.findings {
        assert!(!f.message.is_empty(), "empty message: {f:?}");
        // The core's own words for a panic it caught open the message
        // (`not verified: internal error while analysing ...`): a message
        // that quotes source text may contain the words anywhere else.
        assert!(
            !["not verified: internal error", "unknown: internal error"]
                .iter()
                .any(|p| f.message.starts_with(p)),
            "the core caught a panic: {}",
            f.message
        );
        for span in std::iter::once(&f.span).chain(f.related.iter().map(|r| &r.span)) {
            assert!(
                span.start.offset <= span.end.offset && span.end.offset <= len,
                "span {span:?} outside a text of {len} bytes: {f:?}"
            );
        }
        assert_eq!(f.severity, f.kind.severity(), "{f:?}");
    }
    for k in &report.kernels {
        // Findings name their kernel; with two kernels of one name (mutated
        // inputs copy kernels) a finding cannot be told apart by name.
        let unique = report.kernels.iter().filter(|o| o.name == k.name).count() == 1;
        if k.status != KernelStatus::Verified || !unique {
            continue;
        }
        let against = report.findings.iter().find(|f| {
            f.kernel.as_deref() == Some(k.name.as_str())
                && matches!(
                    f.kind,
                    FindingKind::DataRace
                        | FindingKind::BarrierDivergence
                        | FindingKind::Unknown
                        | FindingKind::NotVerified
                )
        });
        assert!(
            against.is_none(),
            "`{}` verified despite {against:?}",
            k.name
        );
    }
}

// ---------------------------------------------------------------- target (b)

/// A little-endian reader over fuzz input that yields zeros when exhausted.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    fn take(&mut self, n: usize) -> &[u8] {
        let n = n.min(self.0.len());
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        a
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Texts edit sequences start from and insert (picked by a byte).
const FRAGMENTS: [&str; 12] = [
    "__syncthreads();",
    "__shared__ float s[64];",
    "s[threadIdx.x] = a[threadIdx.x];",
    "a[threadIdx.x] = s[(threadIdx.x + 1) % 64];",
    "if (threadIdx.x < 16) {",
    "}",
    "for (int i = 0; i < 4; i++) {",
    "\n",
    "__global__ void k2(float *a) {",
    "/* é 😀 */",
    "\r\n",
    "int t = threadIdx.x;",
];

const START: &str = "__global__ void k(float *a) {\n    __shared__ float s[64];\n    s[threadIdx.x] = a[threadIdx.x];\n    __syncthreads();\n    a[threadIdx.x] = s[63 - threadIdx.x];\n}\n";

/// Target (b): input layout: byte 0 selects the encoding; then the initial
/// text up to the first 0xFF byte (or a built-in kernel when that is empty);
/// then batches of edits, each `[count, (sl, sc, el, ec, kind, payload)…]`
/// where `kind` < 0x80 inserts `payload` bytes of text and otherwise inserts
/// fragment `kind % 12`. Each batch is one didChange (one version).
pub fn edit_sequence(data: &[u8]) {
    let mut input = Bytes(data);
    let enc = if input.byte() & 1 == 0 {
        Encoding::Utf16
    } else {
        Encoding::Utf8
    };
    let rest = input.0;
    let (initial, ops) = match rest.iter().position(|&b| b == 0xFF) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let initial = if initial.is_empty() {
        START.to_string()
    } else {
        String::from_utf8_lossy(initial).into_owned()
    };
    let mut input = Bytes(ops);
    let mut doc = Document::new(initial, 0);
    let options = fuzz_options();
    let cache = MemoryCache::default();
    let mut version = 0;
    let mut analysed_versions = 0;
    while !input.is_empty() && version < 64 {
        let count = (input.byte() % 8) as usize;
        let mut batch: Vec<(Option<Range>, String)> = Vec::new();
        for _ in 0..count {
            let mut pos = || Position::new(input.byte() as u32 % 24, input.byte() as u32 % 64);
            let (start, end) = (pos(), pos());
            let kind = input.byte();
            let text = if kind < 0x80 {
                let n = input.byte() as usize % 32;
                String::from_utf8_lossy(input.take(n)).into_owned()
            } else if kind == 0xFE {
                // A whole-text replacement.
                batch.push((None, START.to_string()));
                continue;
            } else {
                FRAGMENTS[kind as usize % FRAGMENTS.len()].to_string()
            };
            batch.push((Some(Range::new(start, end)), text));
        }
        version += 1;
        doc.apply_changes(batch.iter().map(|(r, t)| (*r, t.as_str())), version, enc);
        assert_tree_is_fresh(&doc);
        // Warm the shared cache on a few intermediate versions, as the
        // server does between edits.
        if version % 4 == 0 && analysed_versions < 2 {
            analysed_versions += 1;
            let _ = syncscope_core::analyze(doc.text(), doc.tree(), &options, &cache, None);
        }
    }
    assert_tree_is_fresh(&doc);
    let incremental = syncscope_core::analyze(doc.text(), doc.tree(), &options, &cache, None);
    check_report(doc.text(), &incremental);
    let fresh = syncscope_core::analyze_source(doc.text(), &options);
    let has_unknown = |r: &FileReport| r.findings.iter().any(|f| f.kind == FindingKind::Unknown);
    // A solver timeout may strike one run and not the other; any other
    // difference is a bug.
    if !has_unknown(&incremental) && !has_unknown(&fresh) {
        assert_eq!(
            diagnostics(&doc, enc, &incremental),
            diagnostics(&doc, enc, &fresh),
            "incremental and fresh diagnostics differ for {:?}",
            doc.text()
        );
    }
}

fn assert_tree_is_fresh(doc: &Document) {
    let fresh = syncscope_core::parse(doc.text(), None);
    let (a, b) = (doc.tree().root_node(), fresh.root_node());
    assert!(
        a.to_sexp() == b.to_sexp()
            && a.start_byte() == b.start_byte()
            && a.end_byte() == b.end_byte(),
        "incremental tree differs from a fresh parse of {:?}",
        doc.text()
    );
}

/// The diagnostics the server would publish for `report`, plus the kernel
/// verdicts of its status notification.
fn diagnostics(doc: &Document, enc: Encoding, report: &FileReport) -> Value {
    let uri: Uri = "file:///fuzz/edit.cu".parse().expect("uri");
    let src = syncscope_lsp::to_proto::Source {
        text: doc.text(),
        index: doc.index(),
        encoding: enc,
    };
    let diags: Vec<_> = report
        .findings
        .iter()
        .map(|f| syncscope_lsp::to_proto::diagnostic(&uri, src, f))
        .collect();
    let kernels: Vec<_> = report
        .kernels
        .iter()
        .map(|k| (k.name.clone(), k.span, k.status))
        .collect();
    json!({ "diagnostics": diags, "kernels": serde_json::to_value(kernels).expect("json") })
}

// ---------------------------------------------------------------- target (c)

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("tokio runtime")
    })
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut v = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    v.extend_from_slice(body);
    v
}

/// Splits a framed stream into bodies, checking the framing is strict: only
/// `Content-Length` headers, each followed by exactly that many bytes.
pub fn parse_frames(mut out: &[u8]) -> Vec<Value> {
    let mut bodies = Vec::new();
    while !out.is_empty() {
        let end = out
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("unterminated header: {:?}", String::from_utf8_lossy(out)));
        let header = std::str::from_utf8(&out[..end]).expect("ASCII header");
        let len: usize = header
            .strip_prefix("Content-Length: ")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("not a protocol header: {header:?}"));
        let body = &out[end + 4..end + 4 + len];
        bodies.push(serde_json::from_slice(body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}): {:?}",
                String::from_utf8_lossy(body)
            )
        }));
        out = &out[end + 4 + len..];
    }
    bodies
}

/// Target (c): input layout: the whole input goes through the framing layer
/// as raw bytes; then each line of it is framed as one message body and sent
/// to a running server after `initialize`.
pub fn protocol(data: &[u8]) {
    let rt = runtime();
    // 1. Raw bytes through the sanitising framing layer: it terminates, and
    //    what it forwards is strictly framed, each body a valid JSON-RPC
    //    message or a stand-in the server answers with an error.
    let forwarded = rt.block_on(async {
        let mut out = Vec::new();
        tokio::time::timeout(
            Duration::from_secs(10),
            syncscope_lsp::framing::pump(data, &mut out),
        )
        .await
        .expect("the framing layer stops at the end of its input");
        out
    });
    for body in parse_frames(&forwarded) {
        assert_eq!(body["jsonrpc"], "2.0", "{body}");
    }

    // 2. Each line as a message body into a server.
    let lines: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .take(64)
        .collect();
    let exits = lines.iter().any(|l| {
        serde_json::from_slice::<Value>(l).is_ok_and(|v| v.get("method") == Some(&json!("exit")))
    });
    rt.block_on(serve_messages(&lines, exits));
}

async fn serve_messages(lines: &[&[u8]], exits: bool) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (client, server) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server);
    let mut serving = tokio::spawn(syncscope_lsp::serve(sr, sw));
    let (mut cr, mut cw) = tokio::io::split(client);
    // Read everything the server writes until it closes its output.
    let reading = tokio::spawn(async move {
        let mut out = Vec::new();
        let _ = cr.read_to_end(&mut out).await;
        out
    });
    let mut input = frame(
        json!({ "jsonrpc": "2.0", "id": "fuzz-init", "method": "initialize", "params": {
            "processId": null, "rootUri": null, "capabilities": {},
            "initializationOptions": { "debounceMs": 0, "timeoutMs": 200 } } })
        .to_string()
        .as_bytes(),
    );
    for l in lines {
        input.extend(frame(l));
    }
    input.extend(frame(
        br#"{"jsonrpc":"2.0","id":"fuzz-final","method":"syncscope/stats"}"#,
    ));
    input.extend(frame(
        br#"{"jsonrpc":"2.0","id":"fuzz-shutdown","method":"shutdown"}"#,
    ));
    input.extend(frame(br#"{"jsonrpc":"2.0","method":"exit"}"#));
    // The server may stop early (an `exit` in the input), so writes may fail.
    let _ = cw.write_all(&input).await;
    let stopped = tokio::time::timeout(Duration::from_secs(20), &mut serving).await;
    assert!(
        stopped.is_ok(),
        "the server did not stop after shutdown and exit"
    );
    assert!(stopped.unwrap().is_ok(), "the server task panicked");
    drop(cw);
    let out = tokio::time::timeout(Duration::from_secs(10), reading)
        .await
        .expect("the server closes its output")
        .expect("reader");
    let messages = parse_frames(&out);
    let answered = |id: &str| messages.iter().any(|m| m["id"] == id);
    if !exits {
        assert!(answered("fuzz-init"), "no answer to initialize");
        assert!(
            answered("fuzz-final"),
            "no answer to the request after the fuzz messages: {messages:?}"
        );
        assert!(answered("fuzz-shutdown"), "no answer to shutdown");
    }
}

// ------------------------------------------------------------ seeds, mutations

/// The repository's `tests/` folder.
pub fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Seed inputs for `target` (`analyze`, `edits`, `protocol`), drawn from the
/// kernel corpus and the examples.
pub fn seeds(target: &str) -> Vec<Vec<u8>> {
    let mut files = crate::cu_files(&crate::corpus_dir());
    files.extend(crate::cu_files(&crate::examples_dir()));
    let texts: Vec<String> = files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .collect();
    match target {
        "analyze" => texts.into_iter().map(String::into_bytes).collect(),
        "edits" => texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut v = vec![i as u8 & 1];
                v.extend_from_slice(t.as_bytes());
                v.push(0xFF);
                // Insert a barrier, delete a line, type a fragment.
                v.extend_from_slice(&[1, 3, 0, 3, 0, 0x80]);
                v.extend_from_slice(&[1, 2, 0, 3, 0, 0, 0]);
                v.extend_from_slice(&[2, 4, 4, 4, 4, 3, b'x', b'+', b'1', 1, 9, 1, 9, 0x82]);
                v
            })
            .collect(),
        "protocol" => seed_files("protocol")
            .into_iter()
            .chain(
                texts
                    .iter()
                    .take(40)
                    .enumerate()
                    .map(|(i, t)| protocol_seed(i, t)),
            )
            .collect(),
        other => panic!("no fuzz target named {other}"),
    }
}

/// The hand-written seeds in `tests/fuzz/seeds/<target>/`.
pub fn seed_files(target: &str) -> Vec<Vec<u8>> {
    let dir = tests_dir().join("fuzz/seeds").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files.iter().filter_map(|f| std::fs::read(f).ok()).collect()
}

/// A session on one corpus text: open, edit, requests, configuration, close.
fn protocol_seed(i: usize, t: &str) -> Vec<u8> {
    let uri = format!("file:///seed/{i}.cu");
    let msgs = [
        json!({"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":uri,"languageId":"cuda","version":1,"text":t}}}),
        json!({"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":uri,"version":2},"contentChanges":[{"range":{"start":{"line":2,"character":0},"end":{"line":2,"character":0}},"text":"__syncthreads();\n"}]}}),
        json!({"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"textDocument":{"uri":uri},"position":{"line":3,"character":4}}}),
        json!({"jsonrpc":"2.0","id":2,"method":"textDocument/codeLens","params":{"textDocument":{"uri":uri}}}),
        json!({"jsonrpc":"2.0","id":3,"method":"textDocument/codeAction","params":{"textDocument":{"uri":uri},"range":{"start":{"line":0,"character":0},"end":{"line":9,"character":0}},"context":{"diagnostics":[]}}}),
        json!({"jsonrpc":"2.0","id":4,"method":"workspace/executeCommand","params":{"command":"syncscope.verifyFile","arguments":[uri]}}),
        json!({"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"syncscope":{"blockDim":[64],"gridDim":[2]}}}}),
        json!({"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":uri}}}),
    ];
    let mut v = Vec::new();
    for m in msgs {
        v.extend_from_slice(m.to_string().as_bytes());
        v.push(b'\n');
    }
    v.extend_from_slice(b"Content-Length: 5\r\n\r\n{\"a\":\nnot json\n");
    v
}

/// A small deterministic generator (PCG-style LCG).
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() as usize) % n.max(1)
    }
}

/// Tokens that mutations splice in: the constructs the front end treats
/// specially, and the ones that break it.
const TOKENS: [&str; 24] = [
    "__syncthreads();",
    "{",
    "}",
    "(",
    ")",
    ";",
    "if (threadIdx.x < 3) ",
    "for (int i = 0; i < n; i++) ",
    "while (1) ",
    "[]",
    "threadIdx.x",
    "blockDim.x",
    "2147483647",
    "99999999999999999999999",
    " / 0",
    " % 0",
    " << 70",
    "-",
    "*",
    "&",
    "#define N 0\n",
    "template <typename T> ",
    "[&](int i) { return i; }",
    "class C { int x; };",
];

/// A deterministic mutation of `seed`: byte flips, deletions, duplications
/// and spliced tokens, as a fuzzer's first mutations would be.
pub fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut v = seed.to_vec();
    let rounds = 1 + rng.below(6);
    for _ in 0..rounds {
        let at = rng.below(v.len() + 1);
        match rng.below(5) {
            0 if !v.is_empty() => {
                let i = at.min(v.len() - 1);
                v[i] = rng.next_u64() as u8;
            }
            1 => {
                let end = (at + rng.below(40)).min(v.len());
                v.drain(at..end);
            }
            2 => {
                let end = (at + rng.below(80)).min(v.len());
                let chunk = v[at..end].to_vec();
                let to = rng.below(v.len() + 1);
                v.splice(to..to, chunk);
            }
            _ => {
                let t = TOKENS[rng.below(TOKENS.len())].as_bytes();
                v.splice(at..at, t.iter().copied());
            }
        }
    }
    v
}
