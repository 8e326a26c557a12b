//! In-process protocol tests: the server runs through `serve` on a duplex pipe.
//! They depend only on the protocol layer (syntax errors, configuration,
//! scheduling, robustness), not on what the verification engine finds.

mod support;

use serde_json::{json, Value};
use std::time::Duration;
use support::*;
use tokio::task::JoinHandle;

fn start() -> (LspClient, JoinHandle<bool>) {
    let (client_side, server_side) = tokio::io::duplex(1 << 20);
    let (sr, sw) = tokio::io::split(server_side);
    let server = tokio::spawn(syncscope_lsp::serve(sr, sw));
    let (cr, cw) = tokio::io::split(client_side);
    let mut client = LspClient::new(cr, cw);
    client.timeout = Duration::from_secs(60);
    (client, server)
}

async fn finished(server: JoinHandle<bool>) -> bool {
    tokio::time::timeout(Duration::from_secs(10), server)
        .await
        .expect("server did not stop after exit")
        .expect("server task panicked")
}

const BROKEN: &str = "__global__ void k(int *a) {\n    a[0] = ;\n}\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_negotiates_utf8_and_shutdown_exits_cleanly() {
    let (mut c, server) = start();
    let r = c
        .initialize(
            None,
            json!({ "capabilities": { "general": { "positionEncodings": ["utf-8", "utf-16"] } } }),
        )
        .await;
    let caps = &r["capabilities"];
    assert_eq!(caps["positionEncoding"], "utf-8");
    assert_eq!(caps["textDocumentSync"]["change"], 2, "incremental sync");
    assert_eq!(caps["hoverProvider"], true);
    assert_eq!(caps["codeActionProvider"]["codeActionKinds"][0], "quickfix");
    assert!(caps["codeLensProvider"].is_object());
    assert_eq!(
        caps["executeCommandProvider"]["commands"][0],
        "syncscope.verifyFile"
    );
    assert_eq!(r["serverInfo"]["name"], "syncscope");
    c.shutdown_and_exit().await;
    assert!(finished(server).await, "exit after shutdown is clean");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn utf16_is_the_default_and_exit_without_shutdown_is_unclean() {
    let (mut c, server) = start();
    let r = c.initialize(None, json!({})).await;
    assert_eq!(r["capabilities"]["positionEncoding"], "utf-16");
    c.notify("exit", Value::Null);
    assert!(!finished(server).await, "exit without shutdown is unclean");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn syntax_errors_are_published_and_cleared_by_an_incremental_edit() {
    let (mut c, server) = start();
    c.initialize(None, json!({})).await;
    let uri = "file:///tmp/inprocess/broken.cu";
    let since = c.mark();
    c.did_open(uri, 1, BROKEN);
    // At once: the syntax error, for version 1.
    let (_, first) = c
        .wait_for(since, "syntax diagnostics", |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        })
        .await;
    assert_eq!(first["params"]["version"], 1);
    let d = &first["params"]["diagnostics"][0];
    assert_eq!(d["code"], "syntax-error");
    assert_eq!(d["source"], "syncscope");
    assert_eq!(d["severity"], 1);
    assert_eq!(
        d["codeDescription"]["href"],
        "https://github.com/syncscope/syncscope/blob/main/docs/diagnostics.md#syntax-error"
    );
    assert_eq!(d["range"]["start"]["line"], 1);
    let (status, diags) = c.wait_analysis(since, uri, 1).await;
    assert!(diags.iter().any(|d| d["code"] == "syntax-error"));
    // A file with a syntax error is never "verified" (`a[0] = ;` leaves a
    // racy write to a[0], which still shows).
    assert!(
        ["syntax-error", "racy", "divergent"].contains(&status["verdict"].as_str().unwrap()),
        "{status}"
    );
    // Fix it: insert `1` at line 1, column 11 (incremental change).
    let since = c.mark();
    c.did_change(
        uri,
        2,
        json!([{ "range": { "start": { "line": 1, "character": 11 }, "end": { "line": 1, "character": 11 } }, "text": "1" }]),
    );
    let (_, diags) = c.wait_analysis(since, uri, 2).await;
    assert!(
        diags.iter().all(|d| d["code"] != "syntax-error"),
        "{diags:?}"
    );
    c.shutdown_and_exit().await;
    assert!(finished(server).await);
}

/// Open bug 5: a file whose kernels are all lost to syntax errors had the
/// file verdict "verified"; so did a kernel analysed despite a syntax error
/// in its parameter list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_with_syntax_errors_is_never_verified() {
    let (mut c, server) = start();
    c.initialize(None, json!({})).await;
    let cases = [
        (
            "file:///tmp/inprocess/lost.cu",
            "__global__ void k(int *a) [ a[threadIdx.x] = 1; }\n",
            0,
        ),
        (
            "file:///tmp/inprocess/kept.cu",
            "__global__ void k(int *a { a[threadIdx.x] = 1; }\n",
            1,
        ),
    ];
    for (uri, text, kernels) in cases {
        let since = c.mark();
        c.did_open(uri, 1, text);
        let (status, diags) = c.wait_analysis(since, uri, 1).await;
        assert!(
            diags.iter().any(|d| d["code"] == "syntax-error"),
            "{diags:?}"
        );
        assert_eq!(
            status["kernels"].as_array().map(Vec::len),
            Some(kernels),
            "{status}"
        );
        assert_eq!(status["verdict"], "syntax-error", "{status}");
    }
    c.shutdown_and_exit().await;
    assert!(finished(server).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn obsolete_versions_are_never_published() {
    let (mut c, server) = start();
    // The open is analysed at once (leading edge); a long debounce makes sure
    // all edits arrive before the next analysis starts, so the first run is
    // cancelled and its result must never be published.
    c.initialize(
        None,
        json!({ "initializationOptions": { "debounceMs": 400 } }),
    )
    .await;
    let uri = "file:///tmp/inprocess/many.cu";
    let since = c.mark();
    let mut text = String::from("__global__ void k(float *a) {\n    a[threadIdx.x] = 1.0f;\n}\n");
    c.did_open(uri, 1, &text);
    for v in 2..=20 {
        let line = text.lines().count();
        c.did_change(
            uri,
            v,
            json!([{ "range": { "start": { "line": line, "character": 0 }, "end": { "line": line, "character": 0 } }, "text": format!("// edit {v}\n") }]),
        );
        text.push_str(&format!("// edit {v}\n"));
    }
    let (status, diags) = c.wait_analysis(since, uri, 20).await;
    assert!(
        diags.iter().all(|d| d["code"] != "syntax-error"),
        "{diags:?}"
    );
    assert_eq!(status["version"], 20);
    c.settle(Duration::from_millis(300)).await;
    let mut last = 0;
    for m in &c.log[since..] {
        if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri {
            let v = m["params"]["version"].as_i64().unwrap();
            assert!(v >= last, "diagnostics for v{v} after v{last}");
            last = v;
        }
        if m["method"] == "syncscope/status" && m["params"]["verdict"] != "analysing" {
            assert_eq!(
                m["params"]["version"], 20,
                "result of an obsolete version: {m}"
            );
        }
    }
    assert_eq!(last, 20);
    // The final text is what the server has: a full reparse gives no error.
    let stats = c.request("syncscope/stats", Value::Null).await;
    assert!(stats["queriesRun"].is_u64());
    c.shutdown_and_exit().await;
    assert!(finished(server).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_file_errors_are_published_on_the_toml_uri() {
    let root = temp_dir("cfg");
    std::fs::write(
        root.join("syncscope.toml"),
        "timeout-ms = 100\nblock-dim = [1, 2, 3, 4]\n",
    )
    .unwrap();
    let root_uri = file_uri(&root.canonicalize().unwrap());
    let toml_uri = format!("{root_uri}/syncscope.toml");
    let (mut c, server) = start();
    c.initialize(Some(&root_uri), json!({})).await;
    let (_, m) = c
        .wait_for(0, "config diagnostics", |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == toml_uri
        })
        .await;
    let d = &m["params"]["diagnostics"][0];
    assert_eq!(d["severity"], 1);
    assert_eq!(d["range"]["start"]["line"], 1);
    assert!(d["message"].as_str().unwrap().contains("1 to 3"), "{d}");

    // Opening the file and fixing it in the editor clears the error.
    let since = c.mark();
    c.did_open(&toml_uri, 1, "timeout-ms = 100\nblock-dim = [1, 2, 3, 4]\n");
    c.did_change(
        &toml_uri,
        2,
        json!([{ "range": { "start": { "line": 1, "character": 18 }, "end": { "line": 1, "character": 21 } }, "text": "" }]),
    );
    c.wait_for(since, "cleared config diagnostics", |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == toml_uri
            && m["params"]["diagnostics"] == json!([])
    })
    .await;
    // Bad TOML syntax.
    let since = c.mark();
    c.did_change(
        &toml_uri,
        3,
        json!([{ "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } }, "text": "[[[\n" }]),
    );
    c.wait_for(since, "TOML syntax error", |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == toml_uri
            && m["params"]["diagnostics"][0]["range"]["start"]["line"] == 0
    })
    .await;
    c.shutdown_and_exit().await;
    assert!(finished(server).await);
    let _ = std::fs::remove_dir_all(&root);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configuration_change_and_verify_command_reanalyse() {
    let (mut c, server) = start();
    c.initialize(None, json!({})).await;
    let uri = "file:///tmp/inprocess/k.cu";
    c.did_open(
        uri,
        1,
        "__global__ void k(float *a) {\n    a[threadIdx.x] = 1.0f;\n}\n",
    );
    c.wait_analysis(0, uri, 1).await;

    let since = c.mark();
    c.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "syncscope": { "blockDim": [64], "gridDim": [2], "warpSync": true, "defines": { "N": "4" } } } }),
    );
    c.wait_analysis(since, uri, 1).await;

    let since = c.mark();
    let r = c
        .request(
            "workspace/executeCommand",
            json!({ "command": "syncscope.verifyFile", "arguments": [uri] }),
        )
        .await;
    assert_eq!(r, Value::Null);
    c.wait_analysis(since, uri, 1).await;

    let id = c.send_request(
        "workspace/executeCommand",
        Some(json!({ "command": "syncscope.nope", "arguments": [] })),
    );
    assert!(c.response(id).await.get("error").is_some());

    // Invalid settings are reported, not applied.
    let since = c.mark();
    c.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "syncscope": { "blockDim": "many" } } }),
    );
    c.wait_for(since, "settings error", |m| {
        m["method"] == "window/showMessage" && m["params"]["type"] == 1
    })
    .await;

    // A key the server does not know is applied to nothing, and said so
    // with the key it probably means; the known keys still apply.
    let since = c.mark();
    c.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "syncscope": { "blockdim": [64], "warpSync": false } } }),
    );
    let (_, warning) = c
        .wait_for(since, "unknown-key warning", |m| {
            m["method"] == "window/logMessage" && m["params"]["type"] == 2
        })
        .await;
    let text = warning["params"]["message"].as_str().unwrap_or_default();
    assert!(
        text.contains("`blockdim`") && text.contains("`blockDim`"),
        "{text}"
    );
    c.wait_analysis(since, uri, 1).await;

    let lenses = c
        .request(
            "textDocument/codeLens",
            json!({ "textDocument": { "uri": uri } }),
        )
        .await;
    assert!(lenses.is_array(), "{lenses}");
    c.shutdown_and_exit().await;
    assert!(finished(server).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_and_bad_requests_leave_the_server_answering() {
    let (mut c, server) = start();
    c.initialize(None, json!({})).await;
    let uri = "file:///tmp/inprocess/robust.cu";
    c.did_open(
        uri,
        1,
        "__global__ void k(float *a) {\n    a[threadIdx.x] = 1.0f;\n}\n",
    );

    abuse(&mut c, uri, 2).await;
    c.wait_analysis(0, uri, 2).await;
    c.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": uri } }),
    );
    c.wait_for(0, "diagnostics cleared on close", |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri
            && m["params"]["diagnostics"] == json!([])
            && m["params"].get("version").is_none_or(Value::is_null)
    })
    .await;
    c.shutdown_and_exit().await;
    assert!(finished(server).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compare_with_runs_equiv_on_two_open_kernels() {
    let (mut c, server) = start();
    let r = c.initialize(None, json!({})).await;
    assert_eq!(
        r["capabilities"]["executeCommandProvider"]["commands"][1],
        "syncscope.compareWith"
    );
    let copy = "__global__ void copy(float *b, const float *a) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    b[i] = a[i];\n}\n";
    let scaled = "__global__ void copy(float *b, const float *a) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    b[i] = a[i] * 2.0f;\n}\n";
    let (ua, ub, uc) = (
        "file:///tmp/inprocess/copy_a.cu",
        "file:///tmp/inprocess/copy_b.cu",
        "file:///tmp/inprocess/copy_c.cu",
    );
    c.did_open(ua, 1, copy);
    c.did_open(ub, 1, copy);
    c.did_open(uc, 1, scaled);
    let same = c
        .request(
            "workspace/executeCommand",
            json!({ "command": "syncscope.compareWith", "arguments": [ua, "copy", ub, "copy"] }),
        )
        .await;
    assert_eq!(same["verdict"], "equivalent", "{same}");
    let differ = c
        .request(
            "workspace/executeCommand",
            json!({ "command": "syncscope.compareWith", "arguments": [ua, "copy", uc, "copy"] }),
        )
        .await;
    assert_eq!(differ["verdict"], "not-equivalent", "{differ}");
    assert_eq!(differ["counterexample"]["array"], "b", "{differ}");
    // A sum in another order: unknown, equivalent when the fifth argument
    // asks for `--assoc` (and the result says what was assumed).
    let left = "__global__ void copy(float *b, const float *a) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    b[i] = (a[3 * i] + a[3 * i + 1]) + a[3 * i + 2];\n}\n";
    let right = "__global__ void copy(float *b, const float *a) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    b[i] = a[3 * i] + (a[3 * i + 1] + a[3 * i + 2]);\n}\n";
    let (ul, ur) = (
        "file:///tmp/inprocess/sum_l.cu",
        "file:///tmp/inprocess/sum_r.cu",
    );
    c.did_open(ul, 1, left);
    c.did_open(ur, 1, right);
    let plain = c
        .request(
            "workspace/executeCommand",
            json!({ "command": "syncscope.compareWith", "arguments": [ul, "copy", ur, "copy"] }),
        )
        .await;
    assert_eq!(plain["verdict"], "unknown", "{plain}");
    let assoc = c
        .request(
            "workspace/executeCommand",
            json!({ "command": "syncscope.compareWith", "arguments": [ul, "copy", ur, "copy", { "assoc": true }] }),
        )
        .await;
    assert_eq!(assoc["verdict"], "equivalent", "{assoc}");
    assert!(assoc["notes"].to_string().contains("--assoc"), "{assoc}");
    let id = c.send_request(
        "workspace/executeCommand",
        Some(json!({ "command": "syncscope.compareWith", "arguments": [ua, "copy"] })),
    );
    assert!(c.response(id).await.get("error").is_some());
    c.shutdown_and_exit().await;
    assert!(finished(server).await);
}

/// `syncscope.compareWith` reads files it has not been sent (on its
/// blocking thread) in their project, under the workspace's settings: the
/// two transposes of tests/projects/equiv share a tile size from a header
/// found only through the client's `includeDirs`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compare_with_reads_unopened_files_in_their_project() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/projects/equiv")
        .canonicalize()
        .expect("the equiv project fixture");
    let uri = |p: &std::path::Path| format!("file://{}", p.display());
    let (ua, ub) = (
        uri(&root.join("src/transpose_naive.cu")),
        uri(&root.join("src/transpose_tiled.cu")),
    );
    for (settings, verdict) in [
        (json!({ "includeDirs": ["include"] }), "equivalent"),
        (json!({}), "refused"),
    ] {
        let (mut c, server) = start();
        c.initialize(
            Some(&uri(&root)),
            json!({ "initializationOptions": settings }),
        )
        .await;
        let r = c
            .request(
                "workspace/executeCommand",
                json!({ "command": "syncscope.compareWith", "arguments": [ua, "transpose", ub, "transpose"] }),
            )
            .await;
        assert_eq!(r["verdict"], verdict, "{settings}: {r}");
        if verdict == "refused" {
            assert!(
                r["reason"].as_str().unwrap_or("").contains("not found"),
                "{r}"
            );
        }
        c.shutdown_and_exit().await;
        assert!(finished(server).await);
    }
}

/// A client that announces `experimental.compareLens` gets a "Compare
/// with…" lens per kernel, after the verdict lens, carrying the kernel's
/// document and name; a client that does not gets the verdict lens only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_compare_lens_is_offered_only_to_clients_that_run_it() {
    let text = "__global__ void first(float *b) {\n    b[threadIdx.x] = 1.0f;\n}\n__global__ void second(float *b) {\n    b[threadIdx.x] = 2.0f;\n}\n";
    let uri = "file:///tmp/inprocess/lens.cu";
    for announced in [true, false] {
        let (mut c, server) = start();
        let caps = if announced {
            json!({ "capabilities": { "experimental": { "compareLens": true } } })
        } else {
            json!({})
        };
        c.initialize(None, caps).await;
        c.did_open(uri, 1, text);
        c.wait_analysis(0, uri, 1).await;
        let lenses = c
            .request(
                "textDocument/codeLens",
                json!({ "textDocument": { "uri": uri } }),
            )
            .await;
        let lenses = lenses.as_array().cloned().unwrap_or_default();
        let commands: Vec<&str> = lenses
            .iter()
            .map(|l| l["command"]["command"].as_str().unwrap())
            .collect();
        if announced {
            assert_eq!(
                commands,
                [
                    "syncscope.verifyFile",
                    "syncscope.compareKernels",
                    "syncscope.verifyFile",
                    "syncscope.compareKernels"
                ],
                "{lenses:#?}"
            );
            assert_eq!(lenses[1]["command"]["arguments"], json!([uri, "first"]));
            assert_eq!(lenses[3]["command"]["arguments"], json!([uri, "second"]));
            assert_eq!(lenses[1]["range"], lenses[0]["range"]);
        } else {
            assert_eq!(
                commands,
                ["syncscope.verifyFile", "syncscope.verifyFile"],
                "{lenses:#?}"
            );
        }
        c.shutdown_and_exit().await;
        assert!(finished(server).await);
    }
}
