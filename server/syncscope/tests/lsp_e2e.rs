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
    let mut child = Command::new(env!("CARGO_BIN_EXE_syncscope"))
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn syncscope lsp");
    let stdout = child.stdout.take().unwrap();
    let stdin = child.stdin.take().unwrap();
    (LspClient::new(stdout, stdin), child)
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
    s[t] = out[t];
    out[t] = s[(t + 1) % blockDim.x];
}
";

const DIVERGE: &str = "__global__ void diverge(float *a) {
    __shared__ float s[256];
    if (threadIdx.x < 16) {
        s[threadIdx.x] = a[threadIdx.x];
        __syncthreads();
    }
    a[threadIdx.x] = s[threadIdx.x % 16];
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

fn twenty_kernels(edited_offset: Option<u32>) -> String {
    (0..20u32)
        .map(|i| {
            let offset = if i == 7 { edited_offset.unwrap_or(i + 1) } else { i + 1 };
            format!(
                "__global__ void k{i}(float *a) {{\n    __shared__ float s[256];\n    int t = threadIdx.x;\n    s[t] = a[t] * {}.0f;\n    __syncthreads();\n    a[t] = s[(t + {offset}) % 256];\n}}\n\n",
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
    assert_eq!(old_line, "    a[t] = s[(t + 8) % 256];");
    let since = c.mark();
    c.did_change(
        &uri,
        2,
        json!([{ "range": { "start": { "line": line, "character": 18 }, "end": { "line": line, "character": 19 } }, "text": "100" }]),
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
    let (mut c, child) = spawn();
    c.initialize(None, json!({})).await;
    let uri = "file:///tmp/e2e/robust.cu";
    c.did_open(uri, 1, SHIFT);

    c.send_raw(b"Content-Length: 12\r\n\r\nthis is junk");
    c.send_raw(b"Content-Length: 7\r\n\r\n[1,2,3]");
    c.send_raw(b"X-No-Length: 1\r\n\r\n");
    c.send_raw(b"Content-Length: 2\r\n\r\n{}");
    let (_, parse_error) = c
        .wait_for(0, "parse error response", |m| m["error"]["code"] == -32700)
        .await;
    assert_eq!(parse_error["id"], Value::Null);

    let id = c.send_request("syncscope/noSuchMethod", Some(json!({})));
    assert_eq!(c.response(id).await["error"]["code"], -32601);

    let r = c
        .request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": "file:///tmp/e2e/not-open.cu" }, "position": { "line": 0, "character": 0 } }),
        )
        .await;
    assert_eq!(r, Value::Null);
    c.did_change(
        "file:///tmp/e2e/not-open.cu",
        2,
        json!([{ "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } }, "text": "x" }]),
    );
    let far = json!({ "line": 4000000000u64, "character": 4000000000u64 });
    c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": far }),
    )
    .await;
    c.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": { "start": far, "end": far }, "context": { "diagnostics": [] } }),
    )
    .await;
    c.did_change(
        uri,
        2,
        json!([{ "range": { "start": far, "end": { "line": 0, "character": 99999 } }, "text": "\n// appended\n" }]),
    );

    let stats = c.request("syncscope/stats", Value::Null).await;
    for key in [
        "queriesRun",
        "queriesReused",
        "kernelsAnalysed",
        "kernelsReused",
    ] {
        assert!(stats[key].is_u64(), "{key} in {stats}");
    }
    c.wait_analysis(0, uri, 2).await;
    c.shutdown_and_exit().await;
    assert_eq!(exit_code(child).await, 0);
}
