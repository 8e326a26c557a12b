//! End-to-end tests of `syncscope lsp`: the real binary over stdio, driven by
//! a small JSON-RPC client (Content-Length framing; every wait has a timeout).
//!
//! The fix tests pin the launch to one block of 256 threads (through
//! `initializationOptions`) so that they exercise exactly the intra-block
//! shared-memory behaviour they are about.

#[path = "../../syncscope-lsp/tests/support/mod.rs"]
mod support;

use serde_json::{json, Value};
use std::process::Stdio;
use std::time::Duration;
use support::*;
use tokio::process::{Child, Command};

fn spawn() -> (LspClient, Child) {
    spawn_with(|_| {})
}

/// `syncscope lsp` on stdio, after `configure` sets its directory or
/// environment.
fn spawn_with(configure: impl FnOnce(&mut Command)) -> (LspClient, Child) {
    let (c, child, _) = spawn_logged(configure);
    (c, child)
}

/// [`spawn_with`], and what the server writes on stderr (captured, not
/// printed: see [`ServerLog`]).
fn spawn_logged(configure: impl FnOnce(&mut Command)) -> (LspClient, Child, ServerLog) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_syncscope"));
    command
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    configure(&mut command);
    let mut child = command.spawn().expect("spawn syncscope lsp");
    let stdout = child.stdout.take().unwrap();
    let stdin = child.stdin.take().unwrap();
    let log = ServerLog::capture(child.stderr.take().unwrap());
    (LspClient::new(stdout, stdin), child, log)
}

async fn exit_code(mut child: Child) -> i32 {
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait())
        .await
        .expect("server did not exit")
        .expect("wait for server");
    status.code().expect("exit code")
}

fn one_block() -> Value {
    json!({ "initializationOptions": { "blockDim": [256], "gridDim": [1] } })
}

async fn start(root: &std::path::Path) -> (LspClient, Child, String) {
    let (mut c, child) = spawn();
    let root_uri = file_uri(root);
    c.initialize(Some(&root_uri), one_block()).await;
    (c, child, root_uri)
}

const SHIFT: &str = "__global__ void shift(float *out) {
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = out[blockIdx.x * blockDim.x + t];
    out[blockIdx.x * blockDim.x + t] = s[(t + 1) % blockDim.x];
}
";

const DIVERGE: &str = "__global__ void diverge(float *a) {
    __shared__ float s[256];
    if (threadIdx.x < 16) {
        s[threadIdx.x] = a[blockIdx.x * blockDim.x + threadIdx.x];
        __syncthreads();
    }
    a[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x % 16];
}
";

const REDUNDANT: &str = "__global__ void redundant(float *a) {
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = a[t];
    __syncthreads();
    a[t] = s[t] * 2.0f;
}
";

fn with_code<'a>(diags: &'a [Value], code: &str) -> Vec<&'a Value> {
    diags.iter().filter(|d| d["code"] == code).collect()
}

/// (code, range) pairs, for comparing two diagnostic lists.
fn summary(diags: &[Value]) -> Vec<String> {
    let mut v: Vec<String> = diags
        .iter()
        .map(|d| format!("{} {}", d["code"], d["range"]))
        .collect();
    v.sort();
    v
}

async fn code_lenses(c: &mut LspClient, uri: &str) -> Vec<Value> {
    c.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri } }),
    )
    .await
    .as_array()
    .cloned()
    .unwrap_or_default()
}

struct Fixed {
    finding: Value,
    fixed_diags: Vec<Value>,
}

/// Opens `text`, expects a `code` diagnostic, applies the quick-fix whose
/// title contains `title_part` as an incremental didChange, and checks that
/// the finding is gone — and that the server's edited text analyses exactly
/// like the same text opened fresh.
async fn fix_flow(
    c: &mut LspClient,
    root_uri: &str,
    name: &str,
    text: &str,
    code: &str,
    title_part: &str,
) -> Fixed {
    let uri = format!("{root_uri}/{name}.cu");
    let since = c.mark();
    c.did_open(&uri, 1, text);
    let (_, diags) = c.wait_analysis(since, &uri, 1).await;
    let found = with_code(&diags, code);
    assert_eq!(found.len(), 1, "expected one {code} in {diags:#?}");
    let d = found[0].clone();
    assert_eq!(d["source"], "syncscope");
    assert_eq!(
        d["codeDescription"]["href"],
        format!("https://github.com/syncscope/syncscope/blob/main/docs/diagnostics.md#{code}")
    );

    let actions = c
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": { "uri": uri },
                "range": d["range"],
                "context": { "diagnostics": [d], "only": ["quickfix"] }
            }),
        )
        .await;
    let actions = actions.as_array().cloned().unwrap_or_default();
    let action = actions
        .iter()
        .find(|a| {
            a["title"]
                .as_str()
                .is_some_and(|t| t.to_lowercase().contains(&title_part.to_lowercase()))
        })
        .unwrap_or_else(|| panic!("no quick-fix containing {title_part:?} in {actions:#?}"))
        .clone();
    assert_eq!(action["kind"], "quickfix");
    assert_eq!(action["diagnostics"][0]["code"], code);
    let edits = action["edit"]["changes"][&uri]
        .as_array()
        .cloned()
        .expect("workspace edit for the document");
    assert!(!edits.is_empty());
    let fixed_text = apply_edits(text, &edits);

    let since = c.mark();
    c.did_change(&uri, 2, edits_as_changes(&edits));
    let (_, fixed_diags) = c.wait_analysis(since, &uri, 2).await;
    assert!(
        with_code(&fixed_diags, code).is_empty(),
        "{code} still reported after the fix:\n{fixed_text}\n{fixed_diags:#?}"
    );
    assert!(
        with_code(&fixed_diags, "data-race").is_empty(),
        "the fix introduced a race:\n{fixed_text}\n{fixed_diags:#?}"
    );

    // The incrementally edited document equals the fixed text opened fresh.
    let fresh = format!("{root_uri}/{name}_fresh.cu");
    let since = c.mark();
    c.did_open(&fresh, 1, &fixed_text);
    let (_, fresh_diags) = c.wait_analysis(since, &fresh, 1).await;
    assert_eq!(summary(&fixed_diags), summary(&fresh_diags));
    Fixed {
        finding: d,
        fixed_diags,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_shutdown_exit_codes() {
    let (mut c, child) = spawn();
    let r = c.initialize(None, json!({})).await;
    assert_eq!(r["capabilities"]["positionEncoding"], "utf-16");
    assert_eq!(r["capabilities"]["textDocumentSync"]["change"], 2);
    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0, "exit after shutdown");

    let (mut c, child) = spawn();
    c.initialize(None, json!({})).await;
    c.notify("exit", Value::Null);
    assert_eq!(exit_code(child).await, 1, "exit without shutdown");

    let (c, child) = spawn();
    drop(c); // end of input without shutdown
    assert_eq!(exit_code(child).await, 1, "EOF without shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn syntax_errors_are_published_at_once() {
    let (mut c, child) = spawn();
    c.initialize(None, json!({})).await;
    let uri = "file:///tmp/e2e/broken.cu";
    c.did_open(uri, 1, "__global__ void k(int *a) {\n    a[0] = ;\n}\n");
    let (_, m) = c
        .wait_for(0, "syntax diagnostics", |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        })
        .await;
    assert_eq!(m["params"]["version"], 1);
    assert_eq!(m["params"]["diagnostics"][0]["code"], "syntax-error");
    assert_eq!(m["params"]["diagnostics"][0]["severity"], 1);
    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn race_is_reported_explained_and_fixed() {
    let root = temp_dir("race");
    let (mut c, child, root_uri) = start(&root).await;
    let uri = format!("{root_uri}/shift.cu");
    let fixed = fix_flow(
        &mut c,
        &root_uri,
        "shift",
        SHIFT,
        "data-race",
        "__syncthreads()",
    )
    .await;
    let d = &fixed.finding;
    assert_eq!(d["severity"], 1);
    let related = d["relatedInformation"]
        .as_array()
        .expect("relatedInformation");
    assert!(!related.is_empty());
    assert_eq!(related[0]["location"]["uri"], uri.as_str());
    assert_ne!(
        related[0]["location"]["range"], d["range"],
        "the other access"
    );
    assert!(fixed.fixed_diags.iter().all(|d| d["severity"] != 1));

    // Reopen the racy version under another name: hover and code lens.
    let racy = format!("{root_uri}/shift_racy.cu");
    let since = c.mark();
    c.did_open(&racy, 1, SHIFT);
    let (status, diags) = c.wait_analysis(since, &racy, 1).await;
    assert_eq!(status["verdict"], "racy");
    assert_eq!(status["kernels"][0]["name"], "shift");
    let race = with_code(&diags, "data-race")[0].clone();
    let hover = c
        .request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": racy }, "position": race["range"]["start"] }),
        )
        .await;
    let md = hover["contents"]["value"]
        .as_str()
        .expect("markdown hover")
        .to_string();
    assert_eq!(hover["contents"]["kind"], "markdown");
    assert!(md.contains("data-race"), "{md}");
    assert!(
        md.matches("thread (").count() >= 2,
        "hover shows both thread ids: {md}"
    );
    assert!(md.contains("block ("), "{md}");

    let lenses = code_lenses(&mut c, &racy).await;
    assert_eq!(lenses.len(), 1, "{lenses:#?}");
    assert!(lenses[0]["command"]["title"]
        .as_str()
        .unwrap()
        .starts_with("✗ racy"));
    assert_eq!(lenses[0]["command"]["command"], "syncscope.verifyFile");
    assert_eq!(lenses[0]["command"]["arguments"][0], racy.as_str());

    // Kernel hover on the fixed document.
    let lenses = code_lenses(&mut c, &uri).await;
    assert!(lenses[0]["command"]["title"]
        .as_str()
        .unwrap()
        .starts_with("✓ race-free"));
    let hover = c
        .request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri }, "position": lenses[0]["range"]["start"] }),
        )
        .await;
    let md = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(md.contains("verified race-free"), "{md}");
    assert!(md.contains("queries"), "{md}");

    // verifyFile re-analyses without an edit.
    let since = c.mark();
    c.request(
        "workspace/executeCommand",
        json!({ "command": "syncscope.verifyFile", "arguments": [uri] }),
    )
    .await;
    let (status, _) = c.wait_analysis(since, &uri, 2).await;
    assert_eq!(status["verdict"], "verified");

    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0);
    let _ = std::fs::remove_dir_all(&root);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn divergent_barrier_is_reported_and_hoisted() {
    let root = temp_dir("diverge");
    let (mut c, child, root_uri) = start(&root).await;
    let fixed = fix_flow(
        &mut c,
        &root_uri,
        "diverge",
        DIVERGE,
        "barrier-divergence",
        "hoist",
    )
    .await;
    let d = &fixed.finding;
    assert_eq!(d["severity"], 1);
    assert_eq!(d["range"]["start"]["line"], 4, "on the barrier: {d}");
    let related = d["relatedInformation"]
        .as_array()
        .expect("the condition as related");
    assert_eq!(related[0]["location"]["range"]["start"]["line"], 2, "{d}");
    assert!(with_code(&fixed.fixed_diags, "barrier-divergence").is_empty());
    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0);
    let _ = std::fs::remove_dir_all(&root);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redundant_barrier_is_reported_and_removed() {
    let root = temp_dir("redundant");
    let (mut c, child, root_uri) = start(&root).await;
    let fixed = fix_flow(
        &mut c,
        &root_uri,
        "redundant",
        REDUNDANT,
        "redundant-barrier",
        "remove",
    )
    .await;
    let d = &fixed.finding;
    assert_eq!(d["severity"], 2);
    assert_eq!(d["tags"], json!([1]), "Unnecessary tag");
    assert_eq!(d["range"]["start"]["line"], 4);
    assert!(fixed.fixed_diags.is_empty(), "{:#?}", fixed.fixed_diags);
    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0);
    let _ = std::fs::remove_dir_all(&root);
}

/// Twenty kernels; the read after each barrier depends on a parameter, so
/// each kernel still asks the solver (a pair two threads of a small launch
/// collide through is found without it, and query counts would say
/// nothing).
fn twenty_kernels(edited_offset: Option<u32>) -> String {
    (0..20u32)
        .map(|i| {
            let offset = if i == 7 { edited_offset.unwrap_or(i + 1) } else { i + 1 };
            format!(
                "__global__ void k{i}(float *a, int n) {{\n    __shared__ float s[256];\n    int t = threadIdx.x;\n    s[t] = a[t] * {}.0f;\n    __syncthreads();\n    if (n > 0) a[t] = s[(t + {offset}) % 256];\n}}\n\n",
                i + 2
            )
        })
        .collect()
}

/// The query count in a lens title like "✓ race-free (14 queries, 9 ms)".
fn lens_queries(title: &str) -> u64 {
    let before = title.split(" queries").next().unwrap_or("");
    before
        .rsplit(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no query count in {title:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_reruns_only_the_changed_kernels_queries() {
    let root = temp_dir("incremental");
    let (mut c, child, root_uri) = start(&root).await;
    let uri = format!("{root_uri}/twenty.cu");
    let n = |s: &Value, k: &str| s[k].as_u64().unwrap_or_else(|| panic!("{k} in {s}"));

    let s0 = c.request("syncscope/stats", Value::Null).await;
    let text = twenty_kernels(None);
    let since = c.mark();
    c.did_open(&uri, 1, &text);
    let (status, _) = c.wait_analysis(since, &uri, 1).await;
    assert_eq!(status["kernels"].as_array().unwrap().len(), 20, "{status}");
    assert_eq!(status["verdict"], "verified", "{status}");
    let s1 = c.request("syncscope/stats", Value::Null).await;
    let first_run = n(&s1, "queriesRun") - n(&s0, "queriesRun");
    assert!(first_run > 0, "the first analysis runs queries: {s1}");
    assert!(n(&s1, "kernelsAnalysed") >= 20, "{s1}");

    // Per-kernel query counts from the code lenses.
    let lenses = code_lenses(&mut c, &uri).await;
    assert_eq!(lenses.len(), 20);
    let others: u64 = lenses
        .iter()
        .filter(|l| l["range"]["start"]["line"] != 7 * 8)
        .map(|l| lens_queries(l["command"]["title"].as_str().unwrap()))
        .sum();

    // Edit kernel k7's offset `(t + 8)` → `(t + 100)` (line 7*8+5).
    let line = 7 * 8 + 5;
    let old_line = text.lines().nth(line).unwrap();
    assert_eq!(old_line, "    if (n > 0) a[t] = s[(t + 8) % 256];");
    let since = c.mark();
    c.did_change(
        &uri,
        2,
        json!([{ "range": { "start": { "line": line, "character": 29 }, "end": { "line": line, "character": 30 } }, "text": "100" }]),
    );
    let (status, _) = c.wait_analysis(since, &uri, 2).await;
    assert_eq!(status["verdict"], "verified", "{status}");
    let s2 = c.request("syncscope/stats", Value::Null).await;
    let edit_run = n(&s2, "queriesRun") - n(&s1, "queriesRun");
    assert!(
        edit_run < first_run,
        "the edit re-ran {edit_run} queries, the first analysis {first_run}"
    );
    // The 19 unchanged kernels reuse their whole results (none of their
    // queries is even looked up); only k7 is verified again.
    let reused = n(&s2, "kernelsReused") - n(&s1, "kernelsReused");
    let analysed = n(&s2, "kernelsAnalysed") - n(&s1, "kernelsAnalysed");
    assert_eq!((reused, analysed), (19, 1), "{others} queries; {s2}");
    // Same text opened fresh: same verdicts (the edit was applied correctly).
    let fresh = format!("{root_uri}/twenty_fresh.cu");
    let since = c.mark();
    c.did_open(&fresh, 1, &twenty_kernels(Some(100)));
    let (fresh_status, _) = c.wait_analysis(since, &fresh, 1).await;
    assert_eq!(fresh_status["kernels"], status["kernels"]);

    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0);
    let _ = std::fs::remove_dir_all(&root);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_input_and_bad_requests_leave_the_server_answering() {
    let (mut c, child, log) = spawn_logged(|_| {});
    c.initialize(None, json!({})).await;
    let uri = "file:///tmp/e2e/robust.cu";
    c.did_open(uri, 1, SHIFT);

    abuse(&mut c, uri, 2).await;
    // The server says what it skipped, on stderr (kept by the test).
    log.wait_for("syncscope lsp: skipped a message without a valid Content-Length header")
        .await;
    log.wait_for("syncscope: didChange for a document that is not open")
        .await;
    let (_, diags) = c.wait_analysis(0, uri, 2).await;
    let text = format!("{SHIFT}\n// tail\n");
    let fresh = "file:///tmp/e2e/robust_fresh.cu";
    let since = c.mark();
    c.did_open(fresh, 1, &text);
    let (_, fresh_diags) = c.wait_analysis(since, fresh, 1).await;
    assert_eq!(summary(&diags), summary(&fresh_diags));
    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0);
}

/// One of the edits of [`a_thousand_edits_in_a_second_end_in_the_final_texts_diagnostics`],
/// as an LSP text edit against `text` (ASCII, `\n` line ends).
fn random_edit(text: &str, rng: &mut u64) -> Value {
    let mut next = |n: usize| {
        *rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*rng >> 33) as usize) % n.max(1)
    };
    let lines: Vec<&str> = text.split('\n').collect();
    let pos = |l: usize, c: usize| json!({ "line": l, "character": c });
    let edit =
        |s: Value, e: Value, t: &str| json!({ "range": { "start": s, "end": e }, "newText": t });
    let comments: Vec<usize> = (0..lines.len())
        .filter(|&l| lines[l].starts_with("// e"))
        .collect();
    let stray: Vec<(usize, usize)> = (0..lines.len())
        .filter_map(|l| lines[l].find('@').map(|c| (l, c)))
        .collect();
    match next(4) {
        // Insert a comment line; delete one.
        0 => {
            let l = next(lines.len());
            edit(pos(l, 0), pos(l, 0), &format!("// e{}\n", next(1000)))
        }
        1 if !comments.is_empty() => {
            let l = comments[next(comments.len())];
            edit(pos(l, 0), pos(l + 1, 0), "")
        }
        // Type a stray character (a syntax error) and remove it later.
        2 if stray.is_empty() => {
            let l = next(lines.len());
            let c = next(lines[l].len() + 1);
            edit(pos(l, c), pos(l, c), "@")
        }
        _ if !stray.is_empty() => {
            let (l, c) = stray[0];
            edit(pos(l, c), pos(l, c + 1), "")
        }
        _ => edit(pos(0, 0), pos(0, 0), "// e0\n"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_edits_in_a_second_end_in_the_final_texts_diagnostics() {
    let (mut c, child) = spawn();
    c.initialize(None, json!({})).await;
    let uri = "file:///tmp/e2e/thousand.cu";
    let mut text = format!("{SHIFT}{DIVERGE}");
    let since = c.mark();
    c.did_open(uri, 1, &text);
    let mut rng = 42u64;
    let started = std::time::Instant::now();
    for v in 2..=1001 {
        // Mostly one change per message, sometimes two (the second in the
        // coordinates the first leaves).
        let mut changes = Vec::new();
        for _ in 0..if v % 7 == 0 { 2 } else { 1 } {
            let e = random_edit(&text, &mut rng);
            text = apply_edits(&text, std::slice::from_ref(&e));
            changes.push(json!({ "range": e["range"], "text": e["newText"] }));
        }
        c.did_change(uri, v, Value::Array(changes));
    }
    // The last edits remove any stray character, so the final text parses.
    let mut v = 1001;
    while let Some((l, col)) = text
        .split('\n')
        .enumerate()
        .find_map(|(l, s)| s.find('@').map(|c| (l, c)))
    {
        v += 1;
        let e = json!({ "range": { "start": { "line": l, "character": col }, "end": { "line": l, "character": col + 1 } }, "newText": "" });
        text = apply_edits(&text, std::slice::from_ref(&e));
        c.did_change(uri, v, json!([{ "range": e["range"], "text": "" }]));
    }
    let sent = started.elapsed();
    assert!(
        sent < Duration::from_secs(1),
        "sending took {sent:?}: not a second's burst"
    );
    let (status, diags) = c.wait_analysis(since, uri, v).await;
    assert_eq!(status["version"], v);
    assert!(
        with_code(&diags, "syntax-error").is_empty(),
        "{diags:#?}\n{text}"
    );
    // No diagnostics for an obsolete version after a newer one.
    let mut last = 0;
    for m in &c.log[since..] {
        if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri {
            let pv = m["params"]["version"].as_i64().unwrap_or(0);
            assert!(pv >= last, "diagnostics for v{pv} after v{last}");
            last = pv;
        }
    }
    // The server's final text is the client's: same diagnostics as a fresh
    // open of it, and the findings are where the text has them.
    let fresh = "file:///tmp/e2e/thousand_fresh.cu";
    let since = c.mark();
    c.did_open(fresh, 1, &text);
    let (fresh_status, fresh_diags) = c.wait_analysis(since, fresh, 1).await;
    assert_eq!(summary(&diags), summary(&fresh_diags));
    assert_eq!(status["kernels"], fresh_status["kernels"]);
    let race = with_code(&diags, "data-race");
    assert_eq!(race.len(), 1, "{diags:#?}");
    let line = race[0]["range"]["start"]["line"].as_u64().unwrap() as usize;
    assert!(
        text.split('\n').nth(line).unwrap().contains("s["),
        "the race points at line {line} of\n{text}"
    );
    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lifecycle_follows_the_specification() {
    let (mut c, child) = spawn();
    // Before initialize: requests are refused with ServerNotInitialized.
    let id = c.send_request("syncscope/stats", None);
    assert_eq!(c.response(id).await["error"]["code"], -32002);
    c.initialize(None, json!({})).await;
    // A second initialize is an invalid request.
    let id = c.send_request("initialize", Some(json!({ "capabilities": {} })));
    assert!(c.response(id).await.get("error").is_some());
    let uri = "file:///tmp/e2e/lifecycle.cu";
    c.did_open(uri, 1, SHIFT);
    let id = c.send_request("shutdown", None);
    let r = c.response(id).await;
    assert_eq!(r["result"], Value::Null, "{r}");
    // After shutdown: requests are refused with InvalidRequest.
    let id = c.send_request(
        "textDocument/hover",
        Some(json!({ "textDocument": { "uri": uri }, "position": { "line": 0, "character": 0 } })),
    );
    assert_eq!(c.response(id).await["error"]["code"], -32600);
    let id = c.send_request("shutdown", None);
    assert_eq!(c.response(id).await["error"]["code"], -32600);
    c.notify("exit", Value::Null);
    assert_eq!(exit_code(child).await, 0, "exit after shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pathological_documents_leave_the_server_answering() {
    let (mut c, child) = spawn();
    c.initialize(None, json!({})).await;
    let n = 10_000;
    let docs = [
        (
            "file:///tmp/e2e/deep.cu",
            format!(
                "__global__ void k(int *a) {{ {} a[0] = threadIdx.x; {} }}\n",
                "if (a[1]) {".repeat(n),
                "}".repeat(n)
            ),
        ),
        (
            "file:///tmp/e2e/unclosed.cu",
            format!("__global__ void k(int *a) {{ {}", "(".repeat(n)),
        ),
        (
            "file:///tmp/e2e/many.cu",
            (0..2000)
                .map(|i| format!("__global__ void k{i}(int *a) {{ a[threadIdx.x] = {i}; }}\n"))
                .collect(),
        ),
        (
            "file:///tmp/e2e/big.cu",
            "// padding padding padding padding padding padding padding\n".repeat(40_000)
                + "__global__ void k(int *a) { a[threadIdx.x] = 1; }\n",
        ),
    ];
    let since = c.mark();
    for (uri, text) in &docs {
        c.did_open(uri, 1, text);
    }
    for (uri, _) in &docs {
        let r = c
            .request(
                "textDocument/hover",
                json!({ "textDocument": { "uri": uri }, "position": { "line": 0, "character": 12 } }),
            )
            .await;
        assert!(r.is_null() || r.is_object(), "{r}");
    }
    for (uri, _) in &docs {
        let (status, diags) = c.wait_analysis(since, uri, 1).await;
        if uri.ends_with("unclosed.cu") {
            // No kernel survives; the syntax error is what is reported.
            assert!(!with_code(&diags, "syntax-error").is_empty(), "{diags:#?}");
        } else if uri.ends_with("deep.cu") {
            // The racy write inside is never called verified.
            assert_ne!(status["verdict"], "verified", "{uri}: {status}");
        } else {
            let n = if uri.ends_with("many.cu") { 2000 } else { 1 };
            assert_eq!(status["kernels"].as_array().map(Vec::len), Some(n), "{uri}");
        }
    }
    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0);
}

/// Every file under `dir` (links not followed): path → (link target or
/// length, modification time, content).
fn snapshot(dir: &std::path::Path) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            let key = p.to_string_lossy().into_owned();
            if meta.file_type().is_symlink() {
                out.insert(key, format!("-> {:?}", std::fs::read_link(&p).unwrap()));
            } else if meta.is_dir() {
                out.insert(key, format!("dir {:?}", meta.modified().ok()));
                stack.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                out.insert(
                    key,
                    format!(
                        "{} bytes, {:?}, {:?}",
                        bytes.len(),
                        meta.modified().ok(),
                        String::from_utf8_lossy(&bytes)
                    ),
                );
            }
        }
    }
    out
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_writes_nothing_runs_nothing_and_reads_no_outside_config() {
    use std::os::unix::fs::PermissionsExt;
    let base = temp_dir("untouched").canonicalize().unwrap();
    let root = base.join("ws");
    let home = base.join("home");
    let traps = base.join("bin");
    for d in [
        &root,
        &home.join(".config/syncscope"),
        &traps,
        &root.join("sub"),
    ] {
        std::fs::create_dir_all(d).unwrap();
    }
    // Configuration outside the root, all invalid: read, it would be reported.
    let bad = "block-dim = \"outside the root\"\n";
    std::fs::write(base.join("syncscope.toml"), bad).unwrap();
    std::fs::write(base.join("outside.toml"), bad).unwrap();
    std::fs::write(home.join(".config/syncscope/syncscope.toml"), bad).unwrap();
    std::fs::write(home.join(".syncscope.toml"), bad).unwrap();
    // The root's syncscope.toml is a link to a file outside the root.
    std::os::unix::fs::symlink(base.join("outside.toml"), root.join("syncscope.toml")).unwrap();
    // Programs a verifier might be tempted to run: each leaves a mark.
    let marks = base.join("marks");
    for name in [
        "nvcc", "clang", "clang++", "gcc", "g++", "cc", "cpp", "z3", "git", "make", "cmake",
        "python3", "node",
    ] {
        for dir in [&traps, &root] {
            let p = dir.join(name);
            std::fs::write(
                &p,
                format!(
                    "#!/bin/sh\nmkdir -p '{}' && touch '{}/{name}'\n",
                    marks.display(),
                    marks.display()
                ),
            )
            .unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    std::fs::write(root.join("Makefile"), "all:\n\ttouch made\n").unwrap();
    std::fs::write(root.join("shift.cu"), SHIFT).unwrap();
    std::fs::write(root.join("sub/diverge.cuh"), DIVERGE).unwrap();
    let before = snapshot(&base);

    let path = format!(
        "{}:{}",
        traps.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (mut c, mut child) = spawn_with(|cmd| {
        cmd.current_dir(&root)
            .env("PATH", path)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"));
    });
    let root_uri = file_uri(&root);
    c.initialize(
        Some(&root_uri),
        json!({ "capabilities": { "workspace": { "didChangeWatchedFiles": { "dynamicRegistration": true } } } }),
    )
    .await;
    let shift = format!("{root_uri}/shift.cu");
    let diverge = format!("{root_uri}/sub/diverge.cuh");
    let since = c.mark();
    c.did_open(&shift, 1, SHIFT);
    c.did_open(&diverge, 1, DIVERGE);
    let (status, diags) = c.wait_analysis(since, &shift, 1).await;
    assert_eq!(status["verdict"], "racy", "default options: {status}");
    c.wait_analysis(since, &diverge, 1).await;
    // Ask for fixes (the server only proposes edits), save, re-verify,
    // announce a config change, edit.
    let race = with_code(&diags, "data-race")[0].clone();
    let actions = c
        .request(
            "textDocument/codeAction",
            json!({ "textDocument": { "uri": shift }, "range": race["range"], "context": { "diagnostics": [race] } }),
        )
        .await;
    assert!(actions.as_array().is_some_and(|a| !a.is_empty()));
    c.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": shift } }),
    );
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": format!("{root_uri}/syncscope.toml"), "type": 2 }] }),
    );
    c.request(
        "workspace/executeCommand",
        json!({ "command": "syncscope.verifyFile", "arguments": [shift] }),
    )
    .await;
    let since = c.mark();
    c.did_change(
        &shift,
        2,
        json!([{ "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } }, "text": "// edited\n" }]),
    );
    c.wait_analysis(since, &shift, 2).await;
    c.shutdown_and_exit().await;
    assert_eq!(child.wait().await.unwrap().code(), Some(0));

    // No configuration outside the root was read: nothing was reported on
    // any file but the two open documents.
    for m in &c.log {
        if m["method"] == "textDocument/publishDiagnostics" {
            let u = m["params"]["uri"].as_str().unwrap_or("");
            assert!(
                u == shift || u == diverge || m["params"]["diagnostics"] == json!([]),
                "diagnostics on {u}: {m}"
            );
        }
        if m["method"] == "window/showMessage" {
            assert_ne!(m["params"]["type"], 1, "an error was shown: {m}");
        }
    }
    assert!(
        !marks.exists(),
        "the server ran a program: {:?}",
        std::fs::read_dir(&marks).map(|d| d.count())
    );
    assert_eq!(
        snapshot(&base),
        before,
        "files changed under {}",
        base.display()
    );
    let _ = std::fs::remove_dir_all(&base);
}

/// Defence in depth for the above: the server and core sources have no way
/// to write files or start processes.
#[test]
fn server_and_core_sources_neither_write_files_nor_spawn_processes() {
    let server = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for krate in ["syncscope-core/src", "syncscope-lsp/src"] {
        let mut stack = vec![server.join(krate)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                let text = std::fs::read_to_string(&p).unwrap();
                // Unit tests (at the end of a file) may create fixtures.
                let code = text.split("#[cfg(test)]").next().unwrap_or("");
                for (i, line) in code.lines().enumerate() {
                    for bad in [
                        "fs::write",
                        "File::create",
                        "OpenOptions",
                        "create_dir",
                        "remove_file",
                        "remove_dir",
                        "fs::rename",
                        "fs::copy",
                        "process::Command",
                        "Command::new",
                        "env::var(\"HOME",
                        "home_dir",
                    ] {
                        if line.contains(bad) && !line.trim_start().starts_with("//") {
                            found.push(format!("{}:{}: {}", p.display(), i + 1, line.trim()));
                        }
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// A write followed by `reads` neighbour reads, with no barrier between.
fn neighbour_reads(reads: usize) -> String {
    let mut k = String::from(
        "__global__ void neighbours(float *a) {\n    __shared__ float s[256];\n    int t = threadIdx.x;\n    float acc = 0.0f;\n    s[t] = a[t];\n",
    );
    for j in 1..=reads {
        k.push_str(&format!("    acc += s[(t + {j}) % 256];\n"));
    }
    k.push_str("    a[t] = acc;\n}\n");
    k
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_missing_barrier_is_one_finding_with_one_checked_fix() {
    let root = temp_dir("grouped");
    let (mut c, child, root_uri) = start(&root).await;
    const READS: usize = 6;
    let text = neighbour_reads(READS);
    let fixed = fix_flow(
        &mut c,
        &root_uri,
        "neighbours",
        &text,
        "data-race",
        "__syncthreads()",
    )
    .await;
    let d = &fixed.finding;
    // At the first racing access (the write, line 5), with every colliding
    // access in relatedInformation (the reads, lines 6..).
    assert_eq!(d["range"]["start"]["line"], 4);
    let related = d["relatedInformation"].as_array().expect("related");
    let lines: Vec<u64> = related
        .iter()
        .map(|r| r["location"]["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    // Every read, the witness's pair first and the others in program order
    // (which read the witness names is the solver's choice).
    let mut sorted = lines.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (5..5 + READS as u64).collect::<Vec<_>>());
    assert!(lines[1..].windows(2).all(|w| w[0] < w[1]), "{lines:?}");
    assert!(fixed.fixed_diags.iter().all(|d| d["severity"] != 1));

    // Exactly one quick-fix, preferred (it was re-checked), inserting the
    // barrier before the first read with that line's indentation.
    let uri = format!("{root_uri}/neighbours_again.cu");
    let since = c.mark();
    c.did_open(&uri, 1, &text);
    let (_, diags) = c.wait_analysis(since, &uri, 1).await;
    let races = with_code(&diags, "data-race");
    assert_eq!(races.len(), 1, "{diags:#?}");
    let actions = c
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": { "uri": uri },
                "range": races[0]["range"],
                "context": { "diagnostics": [races[0]], "only": ["quickfix"] }
            }),
        )
        .await;
    let actions = actions.as_array().cloned().unwrap_or_default();
    assert_eq!(actions.len(), 1, "{actions:#?}");
    assert_eq!(actions[0]["isPreferred"], true);
    let edits = actions[0]["edit"]["changes"][&uri].as_array().unwrap();
    assert_eq!(edits.len(), 1);
    assert_eq!(edits[0]["newText"], "    __syncthreads();\n");
    assert_eq!(edits[0]["range"]["start"]["line"], 5);

    // One witness in the hover.
    let hover = c
        .request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri }, "position": races[0]["range"]["start"] }),
        )
        .await;
    let md = hover["contents"]["value"].as_str().unwrap_or_default();
    assert_eq!(md.matches("**Witness:**").count(), 1, "{md}");

    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0);
    let _ = std::fs::remove_dir_all(&root);
}

/// Racy only when a block has more than 32 threads.
const WIDTH_DEPENDENT: &str = "__global__ void width(int *a) {
    __shared__ int s[64];
    s[threadIdx.x % 32] = a[threadIdx.x];
}
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configuration_changes_apply_in_order_with_edits() {
    let root = temp_dir("config-order");
    let (mut c, child) = spawn();
    let root_uri = file_uri(&root);
    c.initialize(
        Some(&root_uri),
        json!({ "initializationOptions": { "blockDim": [32], "gridDim": [1] } }),
    )
    .await;
    let uri = format!("{root_uri}/width.cu");
    let since = c.mark();
    c.did_open(&uri, 1, WIDTH_DEPENDENT);
    let (status, _) = c.wait_analysis(since, &uri, 1).await;
    assert_eq!(status["verdict"], "verified");
    // Each configuration change is followed at once by an edit: the edit's
    // version is analysed under the configuration sent before it.
    let mut version = 1;
    for (width, verdict) in [(64, "racy"), (32, "verified"), (64, "racy")] {
        version += 1;
        let since = c.mark();
        c.notify(
            "workspace/didChangeConfiguration",
            json!({ "settings": { "syncscope": { "blockDim": [width], "gridDim": [1] } } }),
        );
        c.did_change(
            &uri,
            version,
            json!([{ "text": format!("// v{version}\n{WIDTH_DEPENDENT}") }]),
        );
        let (status, _) = c.wait_analysis(since, &uri, version).await;
        assert_eq!(status["verdict"], verdict, "blockDim {width}, v{version}");
    }
    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0);
    let _ = std::fs::remove_dir_all(&root);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newer_edit_stops_the_quick_fix_checks_of_an_older_version() {
    let root = temp_dir("fix-cancel");
    let (mut c, child) = spawn();
    let root_uri = file_uri(&root);
    // A generous query timeout: on a loaded machine the race must still be
    // found (an `unknown` has no fix to check).
    c.initialize(
        Some(&root_uri),
        json!({ "initializationOptions": { "blockDim": [256], "gridDim": [1], "timeoutMs": 60000 } }),
    )
    .await;
    let uri = format!("{root_uri}/neighbours.cu");
    let text = neighbour_reads(40);
    let since = c.mark();
    c.did_open(&uri, 1, &text);
    let (_, diags) = c.wait_analysis(since, &uri, 1).await;
    let race = with_code(&diags, "data-race")[0].clone();
    // The code action of version 1, then at once an edit: the request is
    // answered `ContentModified` (the checks stopped), never with fixes for
    // a text that no longer exists.
    let id = c.send_request(
        "textDocument/codeAction",
        Some(json!({
            "textDocument": { "uri": uri },
            "range": race["range"],
            "context": { "diagnostics": [race], "only": ["quickfix"] }
        })),
    );
    c.did_change(&uri, 2, json!([{ "text": format!("// edited\n{text}") }]));
    let answer = c.response(id).await;
    assert_eq!(answer["error"]["code"], -32801, "{answer:#}");
    let stats = c.request("syncscope/stats", Value::Null).await;
    assert_eq!(stats["fixRequestsCancelled"], 1, "{stats:#}");
    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0);
    let _ = std::fs::remove_dir_all(&root);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_analysis_reports_progress_and_results_as_they_come() {
    let root = temp_dir("progress");
    let (mut c, child) = spawn();
    let root_uri = file_uri(&root);
    c.initialize(
        Some(&root_uri),
        json!({ "initializationOptions": { "blockDim": [256], "gridDim": [1], "timeoutMs": 60000 } }),
    )
    .await;
    let uri = format!("{root_uri}/many.cu");
    // Forty-eight racy kernels, each with many racing pairs to confirm: an
    // analysis long enough to outlive the progress period on any machine
    // this runs on. The assertions below do not depend on how long it took:
    // they check what the server must have done given what it reported.
    const KERNELS: usize = 48;
    let text: String = (0..KERNELS)
        .map(|i| neighbour_reads(24).replace("neighbours", &format!("neighbours{i}")))
        .collect();
    let since = c.mark();
    c.did_open(&uri, 1, &text);
    let (status, diags) = c.wait_analysis(since, &uri, 1).await;
    assert_eq!(status["verdict"], "racy");
    assert_eq!(with_code(&diags, "data-race").len(), KERNELS);
    let log = &c.log[since..];
    let reports: Vec<&str> = log
        .iter()
        .filter(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "report")
        .filter_map(|m| m["params"]["value"]["message"].as_str())
        .collect();
    // Every progress report names the kernels verified so far of all.
    for m in &reports {
        assert!(m.contains(&format!("/{KERNELS} kernels")), "{m}");
    }
    // Results as they come: a report of some but not all kernels verified
    // means their findings were published before the analysis ended, as
    // fewer diagnostics than the final ones.
    let partial_report = reports.iter().any(|m| {
        m.rsplit(": ")
            .next()
            .and_then(|c| c.split('/').next())
            .and_then(|n| n.parse::<usize>().ok())
            .is_some_and(|n| n > 0 && n < KERNELS)
    });
    let published: Vec<usize> = log
        .iter()
        .filter(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri.as_str()
                && m["params"]["version"] == 1
        })
        .map(|m| m["params"]["diagnostics"].as_array().map_or(0, Vec::len))
        .collect();
    assert!(
        published.windows(2).all(|w| w[0] <= w[1]),
        "publications only grow: {published:?}"
    );
    if partial_report {
        assert!(
            published.len() >= 2 && published[0] < published[published.len() - 1],
            "early results then the final ones: {published:?} (reports {reports:?})"
        );
    }
    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0);
    let _ = std::fs::remove_dir_all(&root);
}

/// The classic missing barrier of a tile loop (the project fixture
/// `tests/projects/tile_loop`: a templated tiled product launched from its
/// own host code, the barrier that ends each tile step left out): every race
/// it causes is offered the same preferred quick-fix, the barrier at the end
/// of the loop body, and the fixed text verifies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_barrier_at_the_end_of_a_tile_loop_is_offered_and_fixes_it() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/projects/tile_loop/tiled_product.cu"
    );
    let text = std::fs::read_to_string(fixture).expect("fixture");
    let root = temp_dir("tile-loop");
    let (mut c, child) = spawn();
    let root_uri = file_uri(&root);
    c.initialize(Some(&root_uri), json!({})).await;
    let uri = format!("{root_uri}/tiled_product.cu");
    let since = c.mark();
    c.did_open(&uri, 1, &text);
    let (_, diags) = c.wait_analysis(since, &uri, 1).await;
    let races = with_code(&diags, "data-race");
    // The loads of both tiles race with the previous step's reads.
    let mut lines: Vec<u64> = races
        .iter()
        .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    lines.sort_unstable();
    lines.dedup();
    assert_eq!(lines, vec![20, 21], "{diags:#?}");
    let mut offered = Vec::new();
    for race in &races {
        let actions = c
            .request(
                "textDocument/codeAction",
                json!({
                    "textDocument": { "uri": uri },
                    "range": race["range"],
                    "context": { "diagnostics": [race], "only": ["quickfix"] }
                }),
            )
            .await;
        let actions = actions.as_array().cloned().unwrap_or_default();
        // One code fix, first and preferred; an assumption the race needs
        // (a precondition on the parameters) may follow it, never preferred.
        let assumptions = |a: &&Value| a["title"].as_str().is_some_and(|t| t.starts_with("Assume"));
        assert!(
            actions
                .iter()
                .skip(1)
                .all(|a| assumptions(&a) && a["isPreferred"] == false),
            "{actions:#?}"
        );
        assert!(
            !actions.is_empty() && !assumptions(&&actions[0]),
            "{actions:#?}"
        );
        assert_eq!(actions[0]["isPreferred"], true, "{actions:#?}");
        offered.push(actions[0]["edit"]["changes"][&uri].clone());
    }
    offered.dedup();
    assert_eq!(
        offered.len(),
        1,
        "one fix for the one missing barrier: {offered:#?}"
    );
    let edits = offered[0].as_array().cloned().unwrap_or_default();
    assert_eq!(edits.len(), 1);
    // After the inner product loop's `}` (line 27): the last statement of
    // the tile loop's body, before the next step's loads.
    assert_eq!(edits[0]["range"]["start"]["line"], 26);
    assert_eq!(edits[0]["newText"], "\n        __syncthreads();");
    let since = c.mark();
    c.did_change(&uri, 2, edits_as_changes(&edits));
    let (_, fixed) = c.wait_analysis(since, &uri, 2).await;
    assert!(
        with_code(&fixed, "data-race").is_empty(),
        "{}\n{fixed:#?}",
        apply_edits(&text, &edits)
    );
    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0);
    let _ = std::fs::remove_dir_all(&root);
}

/// Issue 32: the editor uses the launches the CLI uses. In the project
/// fixture `tests/projects/launch_fix`, `mirror` is launched (host.cu) with
/// exactly `width` threads, and its missing barrier's fix (inside the
/// `if (t < width)`) is verified only under that launch: the code action
/// offers it as preferred, as `check --fixes` does, and it removes the race.
/// `mirror_unlaunched` is launched nowhere: the hover over its name and over
/// its races says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixes_and_hovers_use_the_launches_of_the_project() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/projects/launch_fix"
    );
    let root = temp_dir("launch-fix");
    for f in ["mirror.cu", "host.cu"] {
        std::fs::copy(format!("{fixture}/{f}"), root.join(f)).expect("copy the fixture");
    }
    let text = std::fs::read_to_string(root.join("mirror.cu")).expect("fixture");
    let line_of = |needle: &str| {
        text.lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle} not in the fixture")) as u64
    };
    let (mut c, child) = spawn();
    let root_uri = file_uri(&root);
    c.initialize(Some(&root_uri), json!({})).await;
    let uri = format!("{root_uri}/mirror.cu");
    let since = c.mark();
    c.did_open(&uri, 1, &text);
    let (_, diags) = c.wait_analysis(since, &uri, 1).await;

    // `mirror`'s race, between its definition and the next kernel's.
    let (first, last) = (line_of("void mirror(float"), line_of("void mirror_synced("));
    let races = with_code(&diags, "data-race");
    let race = races
        .iter()
        .find(|d| {
            let l = d["range"]["start"]["line"].as_u64().unwrap_or(0);
            first < l && l < last
        })
        .unwrap_or_else(|| panic!("no race in `mirror`: {diags:#?}"));
    let actions = c
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": { "uri": uri },
                "range": race["range"],
                "context": { "diagnostics": [race], "only": ["quickfix"] }
            }),
        )
        .await;
    let actions = actions.as_array().cloned().unwrap_or_default();
    // One code fix, preferred; after it only assumptions on the parameters
    // (race conditions proved under the same launch), never preferred.
    assert!(!actions.is_empty(), "{actions:#?}");
    assert_eq!(
        actions[0]["isPreferred"], true,
        "verified under the launch, as by check --fixes: {actions:#?}"
    );
    assert!(
        actions[1..].iter().all(|a| a["isPreferred"] != true
            && a["title"]
                .as_str()
                .is_some_and(|t| t.ends_with("(precondition)"))),
        "{actions:#?}"
    );
    let edits = actions[0]["edit"]["changes"][&uri]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        edits.iter().any(|e| e["newText"]
            .as_str()
            .is_some_and(|t| t.contains("__syncthreads()"))),
        "{edits:#?}"
    );

    // The kernel launched nowhere: its hover and its races' hovers say so.
    let unlaunched = line_of("void mirror_unlaunched(");
    let column = text
        .lines()
        .nth(unlaunched as usize)
        .unwrap_or_default()
        .find("mirror_unlaunched")
        .unwrap_or(0) as u64;
    let hover = c
        .request(
            "textDocument/hover",
            json!({
                "textDocument": { "uri": uri },
                "position": { "line": unlaunched, "character": column + 2 }
            }),
        )
        .await;
    let md = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        md.contains("no launch site found (searched: mirror.cu, host.cu)"),
        "{md}"
    );
    let race = races
        .iter()
        .find(|d| d["range"]["start"]["line"].as_u64().unwrap_or(0) > unlaunched)
        .unwrap_or_else(|| panic!("no race in `mirror_unlaunched`: {diags:#?}"));
    let hover = c
        .request(
            "textDocument/hover",
            json!({
                "textDocument": { "uri": uri },
                "position": race["range"]["start"]
            }),
        )
        .await;
    let md = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(md.contains("**Launch:** no launch site found"), "{md}");

    // The fix removes `mirror`'s race, under its launch.
    let since = c.mark();
    c.did_change(&uri, 2, edits_as_changes(&edits));
    let (_, fixed) = c.wait_analysis(since, &uri, 2).await;
    let fixed_text = apply_edits(&text, &edits);
    let (first, last) = {
        let at = |needle: &str| {
            fixed_text
                .lines()
                .position(|l| l.contains(needle))
                .unwrap_or(0) as u64
        };
        (at("void mirror(float"), at("void mirror_synced("))
    };
    assert!(
        with_code(&fixed, "data-race").iter().all(|d| {
            let l = d["range"]["start"]["line"].as_u64().unwrap_or(0);
            !(first < l && l < last)
        }),
        "{fixed_text}\n{fixed:#?}"
    );
    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0);
    let _ = std::fs::remove_dir_all(&root);
}

/// Issue 32 item 1: a race in a kernel with no visible launch (the project
/// fixture `tests/projects/conditions`): its hover states the condition on
/// the parameters it needs, its code actions offer the verified assumption
/// of the opposite in the form nvcc compiles (never as the preferred fix),
/// and the text with that assumption verifies; a race that needs no
/// condition says so and is offered no assumption.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_race_hover_states_its_condition_and_the_assumption_is_offered() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/projects/conditions/border_rows.cu"
    );
    let text = std::fs::read_to_string(fixture).expect("fixture");
    let root = temp_dir("conditions");
    let (mut c, child) = spawn();
    let root_uri = file_uri(&root);
    c.initialize(Some(&root_uri), json!({})).await;
    let uri = format!("{root_uri}/border_rows.cu");
    let since = c.mark();
    c.did_open(&uri, 1, &text);
    let (_, diags) = c.wait_analysis(since, &uri, 1).await;
    let races = with_code(&diags, "data-race");
    assert_eq!(races.len(), 3, "{diags:#?}");
    let race_at = |line: u64| {
        races
            .iter()
            .find(|d| d["range"]["start"]["line"] == line)
            .cloned()
            .unwrap_or_else(|| panic!("a race on line {line}: {diags:#?}"))
    };
    // `row[col] = ...` (line 27) and `widest = ...` (line 53), 0-based.
    let (clamp, every) = (race_at(26), race_at(52));
    let hover_of =
        |d: &Value| json!({ "textDocument": { "uri": uri }, "position": d["range"]["start"] });
    let hover = c.request("textDocument/hover", hover_of(clamp)).await;
    let md = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        md.contains("**Condition:** races only when `width < 16`"),
        "{md}"
    );
    let hover = c.request("textDocument/hover", hover_of(every)).await;
    let md = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        md.contains("**Condition:** races for every value of the kernel's parameters"),
        "{md}"
    );

    let actions_for = |d: &Value| {
        json!({
            "textDocument": { "uri": uri },
            "range": d["range"],
            "context": { "diagnostics": [d], "only": ["quickfix"] }
        })
    };
    let actions = c
        .request("textDocument/codeAction", actions_for(every))
        .await;
    let titles: Vec<&str> = actions
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["title"].as_str())
        .collect();
    assert!(
        titles.iter().all(|t| !t.starts_with("Assume")),
        "{titles:?}"
    );
    let actions = c
        .request("textDocument/codeAction", actions_for(clamp))
        .await;
    let actions = actions.as_array().cloned().unwrap_or_default();
    let assume = actions
        .iter()
        .find(|a| a["title"] == "Assume `width >= 16` (precondition)")
        .unwrap_or_else(|| panic!("{actions:#?}"));
    assert_eq!(assume["isPreferred"], false, "{assume:#?}");
    let edits = assume["edit"]["changes"][&uri]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(edits.len(), 1);
    assert_eq!(
        edits[0]["newText"],
        "#ifdef __SYNCSCOPE__\n    __requires(width >= 16);\n#endif\n"
    );
    let since = c.mark();
    c.did_change(&uri, 2, edits_as_changes(&edits));
    let (_, fixed) = c.wait_analysis(since, &uri, 2).await;
    let races: Vec<u64> = with_code(&fixed, "data-race")
        .iter()
        .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    // Only the races of `last_writer` and `clamp_row_narrow` are left
    // (three lines further down).
    assert_eq!(
        races,
        vec![55, 70],
        "{}\n{fixed:#?}",
        apply_edits(&text, &edits)
    );
    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0);
    let _ = std::fs::remove_dir_all(&root);
}

/// Issue 28 item 7: a race whose collision needs two equal values of an
/// input array (the project fixture `tests/projects/input_conditions`):
/// its hover states the property the array must have, its code actions
/// offer the verified annotation stating it (never as the preferred fix),
/// and the text with that annotation verifies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_race_through_an_input_array_offers_the_annotation_of_its_property() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/projects/input_conditions/slots.cu"
    );
    let text = std::fs::read_to_string(fixture).expect("fixture");
    let root = temp_dir("input_conditions");
    let (mut c, child) = spawn();
    let root_uri = file_uri(&root);
    c.initialize(Some(&root_uri), json!({})).await;
    let uri = format!("{root_uri}/slots.cu");
    let since = c.mark();
    c.did_open(&uri, 1, &text);
    let (_, diags) = c.wait_analysis(since, &uri, 1).await;
    let races = with_code(&diags, "data-race");
    // `out[slot[i]] = ...` (line 25), 0-based.
    let scatter = races
        .iter()
        .find(|d| d["range"]["start"]["line"] == 24)
        .cloned()
        .unwrap_or_else(|| panic!("the scatter's race: {diags:#?}"));
    let hover = c
        .request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri }, "position": scatter["range"]["start"] }),
        )
        .await;
    let md = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        md.contains("**Condition:** races unless `slot` holds distinct values"),
        "{md}"
    );
    let actions = c
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": { "uri": uri },
                "range": scatter["range"],
                "context": { "diagnostics": [scatter], "only": ["quickfix"] }
            }),
        )
        .await;
    let actions = actions.as_array().cloned().unwrap_or_default();
    let assume = actions
        .iter()
        .find(|a| a["title"] == "Assume `__distinct(slot)` (precondition)")
        .unwrap_or_else(|| panic!("{actions:#?}"));
    assert_eq!(assume["isPreferred"], false, "{assume:#?}");
    let edits = assume["edit"]["changes"][&uri]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(edits.len(), 1);
    assert_eq!(
        edits[0]["newText"],
        "#ifdef __SYNCSCOPE__\n    __requires(__distinct(slot));\n#endif\n"
    );
    let since = c.mark();
    c.did_change(&uri, 2, edits_as_changes(&edits));
    let (_, fixed) = c.wait_analysis(since, &uri, 2).await;
    let lines: Vec<u64> = with_code(&fixed, "data-race")
        .iter()
        .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    // The scatter's race is gone; `merge_places` and `halves` keep theirs
    // (three lines further down).
    let before: Vec<u64> = races
        .iter()
        .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
        .filter(|l| *l != 24)
        .map(|l| l + 3)
        .collect();
    assert_eq!(lines, before, "{}\n{fixed:#?}", apply_edits(&text, &edits));
    assert_eq!(lines.len(), 2, "{fixed:#?}");
    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0);
    let _ = std::fs::remove_dir_all(&root);
}
