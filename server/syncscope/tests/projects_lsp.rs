//! The project fixtures (`tests/projects`) through the language server: the
//! real binary, one workspace per fixture folder. Each file's diagnostics and
//! kernel verdicts must be the CLI's (same project model, same
//! syncscope.toml), and editing a header re-verifies the file including it.

#[path = "../../syncscope-lsp/tests/support/mod.rs"]
mod support;

use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use support::*;
use syncscope_tests::*;
use tokio::process::{Child, Command};

fn spawn() -> (LspClient, Child) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_syncscope"));
    command
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn().expect("spawn syncscope lsp");
    let stdout = child.stdout.take().unwrap();
    let stdin = child.stdin.take().unwrap();
    // Kept, not printed (shown by the harness if the test fails).
    ServerLog::capture(child.stderr.take().unwrap());
    let mut c = LspClient::new(stdout, stdin);
    // A guard against a hung server only: verdicts, not speed, are tested.
    c.timeout = Duration::from_secs(900);
    (c, child)
}

/// (code, 1-based line) of each finding, and (kernel, verdict) pairs.
type View = (BTreeSet<(String, u64)>, BTreeSet<(String, String)>);

/// The CLI's findings and kernel verdicts for `file`.
fn cli_view(file: &Path) -> View {
    let text = std::fs::read_to_string(file).unwrap();
    let e = expectations(&text);
    let flags = project_flags(&e, file);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let mut args = syncscope::cli::parse_check_args(&flags).unwrap();
    args.paths = vec![file.to_path_buf()];
    let (results, errors) = syncscope::cli::results(&args);
    assert!(errors.is_empty(), "{errors:?}");
    let r = &results[0].report;
    let findings = r
        .findings
        .iter()
        .map(|f| (f.kind.code().to_string(), u64::from(f.span.start.line) + 1))
        .collect();
    let kernels = r
        .kernels
        .iter()
        .map(|k| (k.name.clone(), k.status.as_str().to_string()))
        .collect();
    (findings, kernels)
}

fn server_view(diags: &[Value], status: &Value) -> View {
    let findings = diags
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("").to_string(),
                d["range"]["start"]["line"].as_u64().unwrap_or(0) + 1,
            )
        })
        .collect();
    let kernels = status["kernels"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|k| {
            (
                k["name"].as_str().unwrap_or("").to_string(),
                k["status"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    (findings, kernels)
}

/// Opens every fixture of `folder` in a server rooted there and compares
/// each with the CLI. Returns the mismatches.
async fn compare_folder(folder: &Path) -> Vec<String> {
    let files = project_fixture_files(folder);
    let mut include_dirs = BTreeSet::new();
    for f in &files {
        let e = expectations(&std::fs::read_to_string(f).unwrap());
        include_dirs.extend(include_flags(&project_flags(&e, f)));
    }
    let (mut c, _child) = spawn();
    let root = file_uri(folder);
    c.initialize(
        Some(&root),
        json!({ "initializationOptions": {
            "timeoutMs": 30000, "kernelBudgetMs": 120000,
            "includeDirs": include_dirs.into_iter().collect::<Vec<_>>(),
        }}),
    )
    .await;
    let mut problems = Vec::new();
    for f in &files {
        let uri = file_uri(f);
        let since = c.mark();
        c.did_open(&uri, 1, &std::fs::read_to_string(f).unwrap());
        let (status, diags) = c.wait_analysis(since, &uri, 1).await;
        let server = server_view(&diags, &status);
        let cli = cli_view(f);
        if server != cli {
            problems.push(format!("{}: server {server:?}\n  cli {cli:?}", f.display()));
        }
    }
    c.shutdown_and_exit().await;
    problems
}

/// A fixture folder with a syncscope.toml (include folder, a define, a
/// per-kernel launch): the CLI finds the file by walking up, the server
/// reads it at the workspace root, and both report the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_and_server_agree_on_a_folder_with_a_syncscope_toml() {
    let folder = projects_dir().join("configured");
    assert!(folder.join("syncscope.toml").is_file());
    let problems = compare_folder(&folder).await;
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // And the verdicts are the expected ones (racy needs BLOCK from the file).
    let (_, kernels) = cli_view(&folder.join("stencil.cu"));
    assert!(
        kernels.contains(&("stencil".into(), "verified".into())),
        "{kernels:?}"
    );
    assert!(
        kernels.contains(&("stencil_racy".into(), "racy".into())),
        "{kernels:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_project_fixture_gets_the_clis_findings_through_the_server() {
    let mut folders: Vec<PathBuf> = std::fs::read_dir(projects_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    assert!(folders.len() >= 6, "{folders:?}");
    // Two folders at a time, each with a server of its own (the CLI runs
    // of one overlap the other's server work).
    let halves: Vec<tokio::task::JoinHandle<Vec<String>>> = (0..2)
        .map(|half| {
            let mine: Vec<PathBuf> = folders.iter().skip(half).step_by(2).cloned().collect();
            tokio::spawn(async move {
                let mut problems = Vec::new();
                for f in &mine {
                    problems.extend(compare_folder(f).await);
                }
                problems
            })
        })
        .collect();
    let mut problems = Vec::new();
    for half in halves {
        problems.extend(half.await.expect("a half of the folders panicked"));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The status of `kernel` in a `syncscope/status` notification's
/// parameters, if it lists that kernel.
fn kernel_status(status: &Value, kernel: &str) -> Option<String> {
    status["kernels"].as_array().and_then(|ks| {
        ks.iter()
            .find(|x| x["name"] == kernel)
            .and_then(|x| x["status"].as_str())
            .map(str::to_string)
    })
}

/// A server on the `headers` project, with the includer `src/tiles.cu` and
/// its header `src/common/tile.cuh` (neither opened yet).
struct HeadersProject {
    c: LspClient,
    _child: Child,
    kernel_file: PathBuf,
    header: PathBuf,
    kuri: String,
    huri: String,
}

async fn open_headers_project() -> HeadersProject {
    let folder = projects_dir().join("headers");
    let (mut c, _child) = spawn();
    c.initialize(
        Some(&file_uri(&folder)),
        json!({ "initializationOptions": { "timeoutMs": 30000, "kernelBudgetMs": 120000 } }),
    )
    .await;
    let kernel_file = folder.join("src/tiles.cu");
    let header = folder.join("src/common/tile.cuh");
    HeadersProject {
        c,
        _child,
        kuri: file_uri(&kernel_file),
        huri: file_uri(&header),
        kernel_file,
        header,
    }
}

/// Editing a header's open buffer re-verifies the open file that includes
/// it, with the buffer's text (not the disk's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn editing_an_open_header_reverifies_its_includer() {
    let HeadersProject {
        mut c,
        _child,
        kernel_file,
        header,
        kuri,
        huri,
    } = open_headers_project().await;
    let since = c.mark();
    c.did_open(&kuri, 1, &std::fs::read_to_string(&kernel_file).unwrap());
    let (status, _) = c.wait_analysis(since, &kuri, 1).await;
    assert_eq!(
        kernel_status(&status, "tile_transpose").as_deref(),
        Some("verified")
    );
    let header_text = std::fs::read_to_string(&header).unwrap();
    let since = c.mark();
    c.did_open(&huri, 1, &header_text);
    c.wait_analysis(since, &huri, 1).await;
    // The barrier macro loses its barrier in the buffer only.
    let edited = header_text.replace("#define SYNC() __syncthreads()", "#define SYNC()");
    assert_ne!(edited, header_text);
    let since = c.mark();
    c.did_change(&huri, 2, json!([{ "text": edited }]));
    // Opening the header may have started a re-verification of its
    // includer with the header as it was, which can end after the edit:
    // the first status after the edit is not necessarily the one that saw
    // the edited buffer. Wait for the includer's status that calls the
    // kernel racy (a server that never does fails on the wait's timeout).
    let (at, _) = c
        .wait_for(since, "tile_transpose racy after the header edit", |m| {
            m["method"] == "syncscope/status"
                && m["params"]["uri"] == kuri
                && m["params"]["version"] == 1
                && m["params"]["kernels"].is_array()
                && kernel_status(&m["params"], "tile_transpose").as_deref() == Some("racy")
        })
        .await;
    let (_, diags) = c.wait_analysis(at, &kuri, 1).await;
    assert!(
        diags.iter().any(|d| d["code"] == "data-race"),
        "the racy status comes with the race's diagnostic: {diags:#?}"
    );
    c.shutdown_and_exit().await;
}

/// A header edited while its includer's first analysis runs (before the
/// server knows which headers the includer reads) still re-verifies the
/// includer: that analysis may have read the header before the edit, and
/// no later event would bring the edit in (the user would see the old
/// verdict until the next edit).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_header_edited_during_its_includers_first_analysis_reverifies_it() {
    let HeadersProject {
        mut c,
        _child,
        kernel_file,
        header,
        kuri,
        huri,
    } = open_headers_project().await;
    let since = c.mark();
    c.did_open(&kuri, 1, &std::fs::read_to_string(&kernel_file).unwrap());
    // The includer's first analysis has started, with the header's text
    // from the disk...
    c.wait_for(since, "the includer's first analysis starting", |m| {
        m["method"] == "syncscope/status"
            && m["params"]["uri"] == kuri
            && m["params"]["verdict"] == "analysing"
    })
    .await;
    // ...when the header is opened and its barrier macro loses its barrier.
    let header_text = std::fs::read_to_string(&header).unwrap();
    let edited = header_text.replace("#define SYNC() __syncthreads()", "#define SYNC()");
    assert_ne!(edited, header_text);
    c.did_open(&huri, 1, &header_text);
    c.did_change(&huri, 2, json!([{ "text": edited }]));
    let (at, _) = c
        .wait_for(since, "tile_transpose racy with the edited header", |m| {
            m["method"] == "syncscope/status"
                && m["params"]["uri"] == kuri
                && m["params"]["version"] == 1
                && kernel_status(&m["params"], "tile_transpose").as_deref() == Some("racy")
        })
        .await;
    let (_, diags) = c.wait_analysis(at, &kuri, 1).await;
    assert!(
        diags.iter().any(|d| d["code"] == "data-race"),
        "the racy status comes with the race's diagnostic: {diags:#?}"
    );
    c.shutdown_and_exit().await;
}

/// Closing a header's buffer with unsaved edits re-verifies the open file
/// that includes it, which reads the header from the disk again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_an_edited_header_unsaved_reverifies_its_includer_with_the_disk() {
    let HeadersProject {
        mut c,
        _child,
        kernel_file,
        header,
        kuri,
        huri,
    } = open_headers_project().await;
    let status_of = |m: &Value, v: &str| {
        m["method"] == "syncscope/status"
            && m["params"]["uri"] == kuri
            && m["params"]["version"] == 1
            && kernel_status(&m["params"], "tile_transpose").as_deref() == Some(v)
    };
    let since = c.mark();
    c.did_open(&kuri, 1, &std::fs::read_to_string(&kernel_file).unwrap());
    c.wait_for(since, "tile_transpose verified", |m| {
        status_of(m, "verified")
    })
    .await;
    let header_text = std::fs::read_to_string(&header).unwrap();
    let edited = header_text.replace("#define SYNC() __syncthreads()", "#define SYNC()");
    assert_ne!(edited, header_text);
    c.did_open(&huri, 1, &header_text);
    let since = c.mark();
    c.did_change(&huri, 2, json!([{ "text": edited }]));
    c.wait_for(since, "tile_transpose racy with the edited buffer", |m| {
        status_of(m, "racy")
    })
    .await;
    // Closed without saving: the disk's header (with its barrier) again.
    let since = c.mark();
    c.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": huri } }),
    );
    c.wait_for(since, "tile_transpose verified after the close", |m| {
        status_of(m, "verified")
    })
    .await;
    c.shutdown_and_exit().await;
}

/// A header opened alone is analysed in the context of an open file that
/// includes it: the definitions that file reads before it count.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_header_is_analysed_in_the_context_of_an_open_includer() {
    let folder = projects_dir().join("headers");
    let header = folder.join("src/common/header_kernel.cuh");
    let huri = file_uri(&header);
    let htext = std::fs::read_to_string(&header).unwrap();
    let options = json!({ "initializationOptions": {
        "timeoutMs": 30000, "kernelBudgetMs": 120000, "blockDim": [16]
    }});
    // Alone: TILE is nobody's; whether t % TILE collides depends on it.
    let (mut c, _child) = spawn();
    c.initialize(Some(&file_uri(&folder)), options.clone())
        .await;
    let since = c.mark();
    c.did_open(&huri, 1, &htext);
    let (alone, _) = c.wait_analysis(since, &huri, 1).await;
    assert_eq!(
        kernel_status(&alone, "header_kernel").as_deref(),
        Some("not-verified"),
        "{alone:#?}"
    );
    c.shutdown_and_exit().await;
    // With tiles.cu open: TILE = 16 from the header it includes first.
    let (mut c, _child) = spawn();
    c.initialize(Some(&file_uri(&folder)), options).await;
    let kernel_file = folder.join("src/tiles.cu");
    let kuri = file_uri(&kernel_file);
    let since = c.mark();
    c.did_open(&kuri, 1, &std::fs::read_to_string(&kernel_file).unwrap());
    c.wait_analysis(since, &kuri, 1).await;
    let since = c.mark();
    c.did_open(&huri, 1, &htext);
    let (with_includer, _) = c.wait_analysis(since, &huri, 1).await;
    assert_eq!(
        kernel_status(&with_includer, "header_kernel").as_deref(),
        Some("verified"),
        "{with_includer:#?}"
    );
    c.shutdown_and_exit().await;
}
