//! The `syncscope check` output contract, run in-process through the CLI's
//! own entry point: exit statuses, SARIF, shards, fixes and hostile input
//! (binary, non-UTF-8, random bytes, missing paths). The JSON shape on every
//! corpus kernel is checked by `tests/corpus.rs`, on the corpus analysis it
//! shares (the same `syncscope::cli::results` a `check` run makes).

use serde_json::Value;
use std::path::PathBuf;
use syncscope_tests::*;

/// Runs `syncscope check FLAGS... PATHS...` through the CLI's own code.
fn run_with(flags: &[&str], paths: &[&str]) -> (i32, String, String) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = match syncscope::cli::parse_check_args(flags) {
        Ok(mut args) => {
            args.paths = paths.iter().map(PathBuf::from).collect();
            syncscope::cli::check(&args, &mut out, &mut err, false)
        }
        Err(e) => {
            err.extend_from_slice(e.as_bytes());
            2
        }
    };
    (
        code,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// Flags first, the last argument is the path.
fn run(args: &[&str]) -> (i32, String, String) {
    let (path, flags) = args.split_last().expect("a path");
    run_with(flags, &[path])
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("syncscope-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

#[test]
fn sarif_is_2_1_0_with_rules_and_results() {
    let p = examples_dir().join("racy_scan.cu");
    let p = p.to_string_lossy().into_owned();
    let (code, stdout, _) = run(&["--format=sarif", &p]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&stdout).expect("SARIF is JSON");
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "syncscope");
    assert!(run["tool"]["driver"]["rules"]
        .as_array()
        .is_some_and(|r| r.len() == syncscope_core::FindingKind::ALL.len()));
    let results = run["results"].as_array().expect("results");
    assert!(results
        .iter()
        .any(|r| r["ruleId"] == "data-race" && r["level"] == "error"));
    let region = &results[0]["locations"][0]["physicalLocation"]["region"];
    assert!(region["startLine"].as_u64().is_some_and(|l| l >= 1));
    // An absolute path outside the working folder is a `file://` URI: a
    // relative reference starting with '/' breaks code scanning (SARIF1004).
    let artifact = &results[0]["locations"][0]["physicalLocation"]["artifactLocation"];
    let uri = artifact["uri"].as_str().expect("uri");
    assert!(
        uri.starts_with("file:///")
            || (artifact["uriBaseId"] == "SRCROOT" && !uri.starts_with('/')),
        "{artifact}"
    );
}

/// Issue 32, item 6: a race's headline is short (kind, cell, the two
/// accesses, long expressions elided); the threads, values and launch are
/// `= note:` lines; every line keeps to 80 columns but the quoted source;
/// the JSON message keeps the whole story.
#[test]
fn human_race_headline_is_short_and_the_rest_are_notes_within_80_columns() {
    let dir = temp_dir("headline");
    let file = dir.join("wide.cu");
    std::fs::write(
        &file,
        "// syncscope-args: --block-dim 128\n__global__ void wide(float *out, const float *in, int row_stride) {\n    __shared__ float staging_buffer[256];\n    int t = threadIdx.x;\n    for (int iteration_index = 0; iteration_index < 2; iteration_index++) {\n        staging_buffer[(t * row_stride + iteration_index) % 256] = in[t];\n        out[t] = staging_buffer[(t + 1 + iteration_index * row_stride) % 256];\n    }\n}\n",
    )
    .unwrap();
    let path = file.to_string_lossy().into_owned();
    let (code, stdout, _) = run(&[&path]);
    assert_eq!(code, 1, "{stdout}");
    let headline = stdout
        .lines()
        .find(|l| l.starts_with("error[data-race]: "))
        .expect("a race");
    assert!(headline.chars().count() <= 80, "{headline}");
    assert!(
        headline.contains("data race on `staging_buffer"),
        "{headline}"
    );
    for note in [
        "= note: thread 1: threadIdx = (",
        "= note: thread 2: threadIdx = (",
        "= note: witness: ",
    ] {
        assert!(stdout.contains(note), "{note} missing:\n{stdout}");
    }
    // The accesses, elided to a headline's size, and never two threads'
    // coordinates on the headline.
    assert!(stdout.contains("..."), "{stdout}");
    assert!(!headline.contains("thread ("), "{headline}");
    assert_eq!(overlong_lines(&stdout), Vec::<String>::new(), "{stdout}");
    // JSON keeps the whole sentence (a contract).
    let (_, json, _) = run(&["--format", "json", &path]);
    let v: Value = serde_json::from_str(&json).unwrap();
    let message = v["findings"][0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("data race on `staging_buffer") && message.contains(" while thread ("),
        "{message}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn human_output_has_carets_and_a_summary() {
    let p = examples_dir().join("racy_scan.cu");
    let p = p.to_string_lossy().into_owned();
    let (code, stdout, _) = run(&[&p]);
    assert_eq!(code, 1);
    assert!(stdout.contains("error[data-race]"), "{stdout}");
    assert!(stdout.contains("^^^"), "{stdout}");
    assert!(
        stdout.contains("checked 1 kernel in 1 file: 1 racy"),
        "{stdout}"
    );
    assert!(!stdout.contains('\x1b'), "no colour when not asked");
}

#[test]
fn warnings_fail_only_with_deny_warnings() {
    let d = temp_dir("warn");
    let f = d.join("w.cu");
    std::fs::write(
        &f,
        "__global__ void k(float *a) {\n  __shared__ float s[64];\n  s[threadIdx.x] = 1.0f;\n  __syncthreads();\n  a[threadIdx.x] = s[threadIdx.x];\n}\n",
    )
    .expect("write");
    let p = f.to_string_lossy().into_owned();
    let (code, out, _) = run(&["--block-dim=64", "--grid-dim=1", "--format=json", &p]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("redundant-barrier"), "{out}");
    let (code, _, _) = run(&["--block-dim=64", "--grid-dim=1", "--deny-warnings", &p]);
    assert_eq!(code, 1);
}

#[test]
fn strictness_never_lets_unknown_or_not_verified_pass_silently() {
    let d = temp_dir("strict");
    let f = d.join("asm.cu");
    std::fs::write(
        &f,
        "__global__ void k(int *out) {\n  asm volatile(\"st.global.u32 [%0], %1;\" :: \"l\"(out), \"r\"(1));\n  out[blockIdx.x * blockDim.x + threadIdx.x] = 2;\n}\n",
    )
    .expect("write");
    let p = f.to_string_lossy().into_owned();
    let (code, out, _) = run(&["--format=json", &p]);
    assert!(out.contains("not-verified"), "{out}");
    assert_eq!(code, 0, "not-verified is information by default");
    assert_eq!(
        run(&["--deny-warnings", &p]).0,
        1,
        "strict: not proven fails"
    );
    assert_eq!(run(&["--fail-on=not-verified", &p]).0, 1);
    assert_eq!(run(&["--fail-on", "unknown,not-verified", &p]).0, 1);
    assert_eq!(run(&["--fail-on=unknown", &p]).0, 0, "only the kinds named");
    let (code, _, err) = run(&["--fail-on=nonsense", &p]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown finding kind"), "{err}");

    // A kernel stopped by its budget is `unknown`: it fails under strictness.
    let hard = d.join("hard.cu");
    std::fs::write(
        &hard,
        "__global__ void hard(int *a, int n, int m) {\n    int x = threadIdx.x + n, y = blockIdx.x + m;\n    a[x*x*x + y*y*y + n*n*n] = 1;\n    a[y*y*y*x + 7*n*m*x] = 2;\n}\n",
    )
    .expect("write");
    let h = hard.to_string_lossy().into_owned();
    let budget = ["--kernel-budget-ms=200", "--timeout-ms=20000"];
    let (code, out, _) = run(&[budget[0], budget[1], "--format=json", &h]);
    assert!(out.contains("\"unknown\""), "{out}");
    assert_eq!(code, 0, "{out}");
    assert_eq!(run(&[budget[0], budget[1], "--fail-on=unknown", &h]).0, 1);
    assert_eq!(run(&[budget[0], budget[1], "--deny-warnings", &h]).0, 1);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn help_documents_every_exit_status() {
    let help = syncscope::cli::help_text();
    for status in [
        "0  no failing finding",
        "1  a failing finding",
        "2  usage error",
    ] {
        assert!(help.contains(status), "{help}");
    }
    assert!(
        help.contains("--fail-on") && help.contains("--deny-warnings"),
        "{help}"
    );
}

#[test]
fn hostile_input_exits_0_1_or_2_with_a_message() {
    let d = temp_dir("hostile");
    let mut seed: u64 = 0x5eed;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as u8
    };
    let random: Vec<u8> = (0..4096).map(|_| next()).collect();
    let printable: Vec<u8> = (0..4096)
        .map(|_| b" {}[]();=+-*/<>&|!_axyz0123456789\n"[next() as usize % 34])
        .collect();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("random.cu", random),
        ("printable.cu", printable),
        ("nul.cu", b"__global__ void k() {}\0\0".to_vec()),
        (
            "latin1.cu",
            b"// caf\xe9\n__global__ void k() {}\n".to_vec(),
        ),
        ("empty.cu", Vec::new()),
        (
            "truncated.cu",
            b"__global__ void k(float *a) { __shared__ float s[4]; s[threadIdx.x".to_vec(),
        ),
        (
            "deep.cu",
            format!(
                "__global__ void k(int *a) {{ {} a[0] = 1; {} }}",
                "if (a[1]) {".repeat(3000),
                "}".repeat(3000)
            )
            .into_bytes(),
        ),
        (
            "huge_constant.cu",
            b"__global__ void k(int *a) { a[99999999999999999999999 / 0 + (1 << 70)] = 1 % 0; }"
                .to_vec(),
        ),
    ];
    for (name, bytes) in &cases {
        let f = d.join(name);
        std::fs::write(&f, bytes).expect("write");
        let p = f.to_string_lossy().into_owned();
        let (code, out, err) = run(&["--timeout-ms=500", &p]);
        assert!((0..=2).contains(&code), "{name}: exit {code}");
        assert!(!out.is_empty() || !err.is_empty(), "{name}: says something");
        if *name == "nul.cu" {
            assert_eq!(code, 2);
            assert!(err.contains("binary"), "{err}");
        }
        if *name == "latin1.cu" {
            assert_eq!(code, 2);
            assert!(err.contains("UTF-8"), "{err}");
        }
    }
    let (code, _, err) = run(&[d.join("does-not-exist.cu").to_string_lossy().as_ref()]);
    assert_eq!(code, 2);
    assert!(err.contains("no such file"), "{err}");
}

/// `equiv` takes the launch and analysis options of `check` (one shared
/// set of flags), and none of `check`'s reporting options; its one option
/// of its own is `--assoc` (what the comparison may assume).
#[test]
fn equiv_takes_checks_launch_and_analysis_options() {
    let check = syncscope::cli::flags_of("check");
    let equiv = syncscope::cli::flags_of("equiv");
    for flag in [
        "--block-dim",
        "--grid-dim",
        "-D",
        "-I",
        "--config",
        "--compile-commands",
        "--cuda-arch",
        "--warp-sync",
        "--bitvector",
        "--timeout-ms",
        "--kernel-budget-ms",
    ] {
        assert!(check.iter().any(|f| f == flag), "check lacks {flag}");
        assert!(equiv.iter().any(|f| f == flag), "equiv lacks {flag}");
    }
    for flag in &equiv {
        assert!(
            check.contains(flag) || flag == "--help" || flag == "--assoc",
            "equiv's {flag} is not a check option"
        );
    }
    for flag in ["--deny-warnings", "--fail-on", "--fixes", "--quiet"] {
        assert!(!equiv.iter().any(|f| f == flag), "equiv takes {flag}");
    }
    // Invalid values are usage errors, as for check.
    let equiv_with = |extra: &[&str]| {
        let mut argv = vec!["syncscope", "equiv", "a.cu:k", "b.cu:k"];
        argv.extend_from_slice(extra);
        syncscope::cli::main_with_args(argv.into_iter().map(Into::into).collect())
    };
    assert_eq!(equiv_with(&["--block-dim", "0"]), 2);
    assert_eq!(equiv_with(&["--cuda-arch", "sm_x"]), 2);
    assert_eq!(equiv_with(&["--deny-warnings"]), 2);
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(
        syncscope::cli::main_with_args(vec!["syncscope".into(), "check".into()]),
        2
    );
    assert_eq!(
        syncscope::cli::main_with_args(vec![
            "syncscope".into(),
            "check".into(),
            "--block-dim".into(),
            "0".into(),
            "x.cu".into()
        ]),
        2
    );
    assert_eq!(
        syncscope::cli::main_with_args(vec!["syncscope".into(), "frobnicate".into()]),
        2
    );
}

/// `syncscope model` prints the model `check` verifies: the file read in its
/// project (its header, `syncscope.toml`'s defines, the template argument of
/// the launch in its host code), where it used to lower the file alone (an
/// unknown `TILE` and `SCALE`, an uninstantiated template).
#[test]
fn model_prints_the_model_check_verifies() {
    let d = temp_dir("model");
    std::fs::write(d.join("syncscope.toml"), "defines = { SCALE = 3 }\n").expect("write");
    std::fs::write(d.join("tile.cuh"), "#define TILE 16\n").expect("write");
    let f = d.join("k.cu");
    std::fs::write(
        &f,
        "#include \"tile.cuh\"\n\
         template <int N> __global__ void k(int *a) {\n\
         \x20 __shared__ int s[N];\n\
         \x20 s[threadIdx.x % N] = 1;\n\
         \x20 __syncthreads();\n\
         \x20 a[threadIdx.x * TILE + SCALE] = s[0];\n\
         }\n\
         void run(int *a) { k<8><<<1, 48>>>(a); }\n",
    )
    .expect("write");
    let p = f.to_string_lossy().into_owned();
    let print = |flags: &[&str]| {
        let mut argv = flags.to_vec();
        argv.push(&p);
        let args = syncscope::cli::parse_model_args(&argv).expect("model args");
        let mut out = Vec::new();
        assert_eq!(syncscope::cli::model(&args, &mut out), 0);
        String::from_utf8(out).expect("utf-8")
    };
    let model = print(&[]);
    assert!(
        model.contains("array s Shared [8]"),
        "the launch's N:\n{model}"
    );
    assert!(
        model.contains("Write a[(threadIdx.x * 16) + 3]"),
        "the header's TILE, syncscope.toml's SCALE:\n{model}"
    );
    // Positions are the file's, not the translation unit's (header first).
    assert!(model.contains("// line 4"), "{model}");
    // The command line's flags are `check`'s.
    let model = print(&["-D", "SCALE=5"]);
    assert!(model.contains("Write a[(threadIdx.x * 16) + 5]"), "{model}");
}

/// `--shard I/N` refuses parts that do not exist, naming the reason, with
/// the usage status.
#[test]
fn a_shard_outside_one_to_n_is_a_usage_error() {
    for (bad, why) in [
        ("0/4", "counts from 1"),
        ("5/4", "counts from 1"),
        ("1/0", "at least 1"),
        ("two/4", "whole numbers"),
        ("2", "I/N"),
    ] {
        let (code, out, err) = run_with(&["--shard", bad], &["x.cu"]);
        assert_eq!(code, 2, "--shard {bad}: {out}{err}");
        assert!(
            err.contains(bad) && err.contains(why),
            "--shard {bad}: {err}"
        );
    }
}

/// A report's entries as a sorted multiset of their JSON texts, with the
/// timings (which differ from run to run) left out.
fn entries(report: &Value, list: &str) -> Vec<String> {
    let mut out: Vec<String> = report[list]
        .as_array()
        .unwrap_or_else(|| panic!("`{list}` is an array: {report}"))
        .iter()
        .map(|e| {
            let mut e = e.clone();
            if let Some(o) = e.as_object_mut() {
                o.remove("millis");
            }
            e.to_string()
        })
        .collect();
    out.sort();
    out
}

/// The files a JSON report speaks of (a kernel's or a finding's `file`).
fn files_of(report: &Value) -> std::collections::BTreeSet<String> {
    ["kernels", "findings"]
        .iter()
        .flat_map(|l| report[l].as_array().cloned().unwrap_or_default())
        .filter_map(|e| e["file"].as_str().map(str::to_string))
        .collect()
}

/// The N parts of `--shard` together are the single run: the same findings
/// and kernels (as multisets), every file in exactly one part, the same
/// SARIF results, and the single run's exit status from the parts'.
#[test]
fn the_shards_of_a_run_together_are_the_run() {
    let dirs = [corpus_dir().join("divergence"), corpus_dir().join("faial")];
    let paths: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    let all_files: std::collections::BTreeSet<String> = dirs
        .iter()
        .flat_map(|d| cu_files(d))
        .map(|f| f.display().to_string())
        .collect();
    let run_as = |format: &str, shard: Option<String>| {
        let mut flags = vec![format!("--format={format}")];
        flags.extend(VERDICT_LIMITS.iter().map(|s| s.to_string()));
        flags.extend(shard.map(|s| format!("--shard={s}")));
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let (code, out, err) = run_with(&flags, &paths);
        assert!(code <= 1, "{flags:?}: status {code}: {err}");
        let report: Value = serde_json::from_str(&out).expect("the report is JSON");
        (code, report)
    };
    let shards: Vec<String> = (1..=3).map(|i| format!("{i}/3")).collect();

    let (whole_code, whole) = run_as("json", None);
    assert_eq!(
        files_of(&whole),
        all_files,
        "the whole run reports every file"
    );
    let parts: Vec<(i32, Value)> = shards
        .iter()
        .map(|s| run_as("json", Some(s.clone())))
        .collect();
    for list in ["findings", "kernels"] {
        let mut merged: Vec<String> = parts.iter().flat_map(|(_, p)| entries(p, list)).collect();
        merged.sort();
        assert_eq!(
            merged,
            entries(&whole, list),
            "the parts' {list} are the run's"
        );
    }
    let mut seen = std::collections::BTreeSet::new();
    for (shard, (_, part)) in shards.iter().zip(&parts) {
        for file in files_of(part) {
            assert!(
                seen.insert(file.clone()),
                "{file} is in two parts (again in {shard})"
            );
        }
    }
    assert_eq!(seen, all_files, "every file is in a part");
    // The split is a real one: no part holds everything.
    let nonempty = parts
        .iter()
        .filter(|(_, p)| !files_of(p).is_empty())
        .count();
    assert!(
        nonempty >= 2,
        "{nonempty} non-empty parts of {}",
        all_files.len()
    );
    // Each part's status is decided by its own findings; together they fail
    // exactly when the run does.
    assert_eq!(parts.iter().map(|(c, _)| *c).max(), Some(whole_code));

    let sarif_results = |report: &Value| -> Vec<String> {
        let run = &report["runs"][0];
        // The findings, and each kernel's verdict (the run's properties).
        let mut out: Vec<String> = run["results"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .chain(
                run["properties"]["kernels"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default(),
            )
            .map(|r| r.to_string())
            .collect();
        out.sort();
        out
    };
    let (_, whole) = run_as("sarif", None);
    assert!(
        !whole["runs"][0]["results"]
            .as_array()
            .expect("results")
            .is_empty(),
        "the corpus folders have findings"
    );
    let mut merged: Vec<String> = shards
        .iter()
        .flat_map(|s| sarif_results(&run_as("sarif", Some(s.clone())).1))
        .collect();
    merged.sort();
    assert_eq!(
        merged,
        sarif_results(&whole),
        "the parts' SARIF results are the run's"
    );
}

/// `syncscope header` prints the repository's `include/syncscope.h` (issue
/// 32 item 4: the annotation header ships with the binary).
#[test]
fn header_prints_the_annotation_header() {
    let mut out = Vec::new();
    assert_eq!(syncscope::cli::header(&mut out), 0);
    let shipped = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../include/syncscope.h"),
    )
    .unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), shipped);
    assert!(shipped.contains("#ifndef __SYNCSCOPE__"));
}

/// The tile-loop fixture (`tests/projects/tile_loop`): a templated tiled
/// product whose tile loop lacks the barrier ending each step, launched
/// from host code as `<16>` and `<32>`.
fn tile_loop_fixture() -> String {
    projects_dir()
        .join("tile_loop/tiled_product.cu")
        .display()
        .to_string()
}

fn races_of<'a>(report: &'a Value, kernel: &str) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["kind"] == "data-race" && f["kernel"] == kernel)
        .collect()
}

/// Issue 32 item 3: the missing barrier of a tile loop has one verified
/// fix, at the end of the loop body (before the next step's loads), shared
/// by every race it causes.
#[test]
fn a_missing_barrier_in_a_tile_loop_has_one_verified_fix() {
    let path = tile_loop_fixture();
    let mut args = vec!["--format=json", "--fixes"];
    args.extend(VERDICT_LIMITS);
    args.push(&path);
    let (code, out, err) = run(&args);
    assert_eq!(code, 1, "{err}");
    let report: Value = serde_json::from_str(&out).expect("JSON");
    let races = races_of(&report, "product_unsynced");
    assert!(!races.is_empty(), "{out}");
    let mut fixes: Vec<&Value> = races
        .iter()
        .flat_map(|f| f["fixes"].as_array().into_iter().flatten())
        .collect();
    assert!(fixes.iter().all(|x| x["verified"] == true), "{out}");
    fixes.dedup_by(|a, b| a["edits"] == b["edits"]);
    assert_eq!(fixes.len(), 1, "one fix for the one missing barrier: {out}");
    assert_eq!(
        races
            .iter()
            .filter(|f| f["fixes"].as_array().is_some_and(|x| x.len() == 1))
            .count(),
        races.len(),
        "every race carries it: {out}"
    );
    let edits = fixes[0]["edits"].as_array().expect("edits");
    assert_eq!(edits.len(), 1);
    // After the inner product loop, which closes on line 27.
    assert_eq!(edits[0]["range"]["start"]["line"], 27);
    assert_eq!(edits[0]["newText"], "\n        __syncthreads();");
    assert!(races_of(&report, "product_synced").is_empty(), "{out}");
}

/// Issue 32 item 4: the races of the tile loop share one fix, and the
/// human output prints its diff once; the later race names it and the line
/// it was shown at instead of repeating the diff.
#[test]
fn a_fix_shared_by_several_findings_is_printed_once() {
    let path = tile_loop_fixture();
    let mut args = vec!["--fixes"];
    args.extend(VERDICT_LIMITS);
    args.push(&path);
    let (code, out, err) = run(&args);
    assert_eq!(code, 1, "{err}");
    let races = out.matches("error[data-race]").count();
    assert!(races >= 2, "the fixture's races: {out}");
    let helps: Vec<&str> = out.lines().filter(|l| l.starts_with("help:")).collect();
    assert_eq!(helps.len(), races, "one help line per race: {out}");
    let diffs = out.matches("+         __syncthreads();").count();
    assert_eq!(diffs, 1, "the shared fix's diff once: {out}");
    assert!(
        helps[1..]
            .iter()
            .all(|h| h.starts_with("help: the fix shown above at line 21")),
        "the later races refer to the first race's diff: {out}"
    );
}

/// Issue 32 item 2: under a block size the user fixes, a template kernel
/// keeps the instantiation its launch names (and the facts of the launch
/// the size agrees with: `if (tile_edge == 16)` selects `<16>`), and a
/// finding that holds under several launches is reported once, naming them.
#[test]
fn a_fixed_block_size_keeps_the_instantiation_and_reports_each_cause_once() {
    let path = tile_loop_fixture();
    let report_for = |block: &str| -> Value {
        let mut args = vec!["--format=json", "--block-dim", block];
        args.extend(VERDICT_LIMITS);
        args.push(&path);
        let (_, out, err) = run(&args);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"))
    };
    let distinct = |report: &Value| {
        let findings = report["findings"].as_array().expect("findings");
        let mut keys: Vec<String> = findings
            .iter()
            .map(|f| format!("{} {} {}", f["kind"], f["range"], f["pairs"]))
            .collect();
        let all = keys.len();
        keys.sort();
        keys.dedup();
        (all, keys.len())
    };
    let kernel = |report: &Value, name: &str| -> Value {
        report["kernels"]
            .as_array()
            .and_then(|k| k.iter().find(|k| k["name"] == name))
            .cloned()
            .unwrap_or_else(|| panic!("no kernel {name}: {report}"))
    };

    // 16 x 16 is the `<16>` launch: the barrier-complete kernel verifies
    // (with `EDGE` unbound, or the host's facts dropped, its output write
    // raced), the other races on its tiles only, each race once.
    let r16 = report_for("16,16");
    let (all, unique) = distinct(&r16);
    assert_eq!(all, unique, "a finding reported twice: {r16}");
    assert_eq!(
        kernel(&r16, "product_synced")["status"],
        "verified",
        "{r16}"
    );
    let launch = kernel(&r16, "product_unsynced")["launch"].to_string();
    assert!(
        launch.contains("<16>") && !launch.contains("<32>"),
        "{launch}"
    );
    let races = races_of(&r16, "product_unsynced");
    let lines: Vec<u64> = races
        .iter()
        .map(|f| f["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, vec![21, 22], "{r16}");

    // 8 x 8 is no launch of the host code: both instantiations are checked
    // under it, and each race, found under both, is one finding naming both.
    let r8 = report_for("8,8");
    let (all, unique) = distinct(&r8);
    assert_eq!(all, unique, "a finding reported twice: {r8}");
    let tile_race = races_of(&r8, "product_unsynced")
        .into_iter()
        .find(|f| f["range"]["start"]["line"] == 21)
        .unwrap_or_else(|| panic!("no race on line 21: {r8}"));
    let launches: Vec<String> = tile_race["launches"]
        .as_array()
        .expect("launches")
        .iter()
        .map(|l| l.as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(launches.len(), 2, "{launches:?}");
    assert!(
        launches[0].starts_with("<16>") && launches[1].starts_with("<32>"),
        "{launches:?}"
    );
    assert!(
        tile_race["message"]
            .as_str()
            .is_some_and(|m| m.contains("also under <32>")),
        "{tile_race}"
    );
}

fn project_file(rel: &str) -> String {
    projects_dir().join(rel).display().to_string()
}

fn kernel_of<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["kernels"]
        .as_array()
        .and_then(|k| k.iter().find(|k| k["name"] == name))
        .unwrap_or_else(|| panic!("no kernel {name}: {report}"))
}

/// Issue 32 item 1: a kernel no launch in the project is understood for
/// says so, naming where it looked: the JSON kernel's `launchNote`, a
/// `launch:` line and a note on each of its races in the human output; a
/// kernel with a launch site has none. A kernel launched only in ways not
/// understood names those uses.
#[test]
fn a_kernel_without_an_understood_launch_says_why() {
    let path = project_file("launch_fix/mirror.cu");
    let mut args = vec!["--format=json"];
    args.extend(VERDICT_LIMITS);
    args.push(&path);
    let (_, out, err) = run(&args);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let unlaunched = kernel_of(&report, "mirror_unlaunched");
    assert!(unlaunched["launch"].is_null(), "{unlaunched}");
    assert_eq!(
        unlaunched["launchNote"],
        "no launch site found (searched: mirror.cu, host.cu); checked for a launch of any size with any arguments, except that blockDim.y, blockDim.z, gridDim.y and gridDim.z are 1 (dimensions the kernel never reads; --block-dim/--grid-dim give others)",
        "{unlaunched}"
    );
    let launched = kernel_of(&report, "mirror");
    assert!(launched["launchNote"].is_null(), "{launched}");
    assert!(
        launched["launch"]
            .as_str()
            .is_some_and(|l| l.contains("(launch at host.cu:11)")),
        "{launched}"
    );

    let mut args: Vec<&str> = VERDICT_LIMITS.to_vec();
    args.push(&path);
    let (_, human, _) = run(&args);
    // Lines wrap at 80 columns: the words, in order.
    let human = human.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        human.contains("launch: kernel `mirror_unlaunched` (")
            && human.contains("no launch site found (searched: mirror.cu, host.cu)"),
        "{human}"
    );
    let notes = human
        .matches("no launch of `mirror_unlaunched` is understood (no launch site")
        .count();
    assert_eq!(
        notes,
        races_of(&report, "mirror_unlaunched").len(),
        "one note on each of its races: {human}"
    );
    assert!(!human.contains("no launch of `mirror` "), "{human}");
    // Where the race's condition on the parameters is told (it is computed
    // with the quick-fixes, after the diagnostics).
    assert!(
        human.contains(
            "never uses; `check --fixes` and the editor's hover state the parameter values it needs"
        ),
        "{human}"
    );

    let path = project_file("launch_ways/kernels.cu");
    let mut args = vec!["--format=json"];
    args.extend(VERDICT_LIMITS);
    args.push(&path);
    let (_, out, err) = run(&args);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let helper = kernel_of(&report, "sum_helper");
    assert!(
        helper["launchNote"].as_str().is_some_and(|n| n.starts_with(
            "launched in ways not understood (host.cu:45: `sum_helper` passed to `launch_with`)"
        )),
        "{helper}"
    );
}

/// Issue 32 item 3 (CLI side of the server's test): `mirror`'s missing
/// barrier has a fix verified under the launch of host.cu only.
#[test]
fn a_fix_verified_under_the_host_launch_is_offered() {
    let path = project_file("launch_fix/mirror.cu");
    let mut args = vec!["--format=json", "--fixes"];
    args.extend(VERDICT_LIMITS);
    args.push(&path);
    let (_, out, err) = run(&args);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let races = races_of(&report, "mirror");
    assert!(!races.is_empty(), "{out}");
    assert!(
        races.iter().all(|f| f["fixes"]
            .as_array()
            .is_some_and(|x| x.iter().any(|x| x["verified"] == true))),
        "{out}"
    );
}

/// Issue 32 item 5: every launch size names where it was written: a flag,
/// the line of syncscope.toml's `[[kernel]]` entry, the file's directive
/// (its line); the facts of a launch site keep theirs. The kernel's launch
/// record and its assumption note say it.
#[test]
fn launch_sizes_name_where_they_were_written() {
    // A flag, next to the facts of the launch site it agrees with.
    let path = project_file("origins/rows.cu");
    let mut args = vec!["--format=json", "--block-dim", "64"];
    args.extend(VERDICT_LIMITS);
    args.push(&path);
    let (_, out, err) = run(&args);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let launch = kernel_of(&report, "shift_rows")["launch"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        launch.starts_with("blockDim = (64,1,1) (from --block-dim)")
            && launch.contains("(launch at host.cu:9)"),
        "{launch}"
    );
    let note = report["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["kind"] == "assumption"))
        .and_then(|f| f["message"].as_str())
        .unwrap_or_default()
        .to_string();
    assert!(
        note.contains("blockDim = (64,1,1) (from --block-dim)")
            && note.contains("(from the launch at host.cu:9)")
            && note.contains("(annotation at line 11)"),
        "{note}"
    );

    // syncscope.toml's `[[kernel]]` entry, by the line of its header.
    let path = project_file("configured/stencil.cu");
    let toml = std::fs::read_to_string(projects_dir().join("configured/syncscope.toml")).unwrap();
    let entry = toml.lines().position(|l| l.trim() == "[[kernel]]").unwrap() + 1;
    let mut args = vec!["--format=json"];
    args.extend(VERDICT_LIMITS);
    args.push(&path);
    let (_, out, err) = run(&args);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    assert_eq!(
        kernel_of(&report, "stencil")["launch"],
        format!("blockDim = (64,1,1) (from syncscope.toml:{entry})"),
        "{out}"
    );

    // The file's own directive, by its line (in the file, though the file
    // is analysed after its header's lines); a flag wins over it and says so.
    let dir = temp_dir("origins");
    std::fs::write(
        dir.join("row.h"),
        "#pragma once\n__device__ int row_of(int block) {\n    return block * 64;\n}\n",
    )
    .unwrap();
    let file = dir.join("directive.cu");
    std::fs::write(
        &file,
        "// A block size and a grid size written in the file.\n// syncscope-args: --block-dim 64 --grid-dim 2\n#include \"row.h\"\n__global__ void fill(float *a, int n) {\n    __requires(n > 0);\n    a[row_of(blockIdx.x) + threadIdx.x] = 1.0f;\n}\n",
    )
    .unwrap();
    let path = file.display().to_string();
    let mut args = vec!["--format=json"];
    args.extend(VERDICT_LIMITS);
    args.push(&path);
    let (_, out, err) = run(&args);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let note = report["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["kind"] == "assumption"))
        .and_then(|f| f["message"].as_str())
        .unwrap_or_default()
        .to_string();
    assert!(
        note.contains("blockDim = (64,1,1), gridDim = (2,1,1) (from the directive on line 2); `__requires(n > 0)` (annotation at line 5)"),
        "{note}"
    );
    let mut args = vec!["--format=json", "--grid-dim", "4"];
    args.extend(VERDICT_LIMITS);
    args.push(&path);
    let (_, out, _) = run(&args);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        kernel_of(&report, "fill")["launch"],
        "blockDim = (64,1,1) (from the directive on line 2), gridDim = (4,1,1) (from --grid-dim)",
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The parameter-condition fixture (`tests/projects/conditions`): kernels
/// with no visible launch, so their parameters are symbolic.
fn conditions_fixture() -> String {
    projects_dir()
        .join("conditions/border_rows.cu")
        .display()
        .to_string()
}

/// Issue 32 item 1: with `--fixes`, a race states its condition on the
/// kernel's parameters (`raceCondition`; a `= note:` in the terminal), and
/// one that needs a condition is offered the verified, compile-safe
/// assumption of its negation; a race that needs none says so and gets no
/// assumption.
#[test]
fn a_race_states_its_condition_on_the_parameters_and_offers_the_assumption() {
    let path = conditions_fixture();
    let mut args = vec!["--format=json", "--fixes"];
    args.extend(VERDICT_LIMITS);
    args.push(&path);
    let (code, out, err) = run(&args);
    assert_eq!(code, 1, "{err}");
    let report: Value = serde_json::from_str(&out).expect("JSON");

    let clamp = races_of(&report, "clamp_row");
    assert_eq!(clamp.len(), 1, "{out}");
    let condition = &clamp[0]["raceCondition"];
    assert_eq!(condition["condition"], "width < 16", "{out}");
    assert_eq!(condition["summary"], "races only when `width < 16`");
    let fixes = clamp[0]["fixes"].as_array().expect("fixes");
    let assume = fixes
        .iter()
        .find(|x| x["precondition"] == true)
        .unwrap_or_else(|| panic!("an assumption fix: {out}"));
    assert_eq!(assume["title"], "Assume `width >= 16` (precondition)");
    assert_eq!(assume["verified"], true, "{out}");
    let edits = assume["edits"].as_array().expect("edits");
    assert_eq!(edits.len(), 1);
    // Right after the kernel's `{` (line 22), guarded so that nvcc compiles it.
    assert_eq!(edits[0]["range"]["start"]["line"], 23);
    assert_eq!(
        edits[0]["newText"],
        "#ifdef __SYNCSCOPE__\n    __requires(width >= 16);\n#endif\n"
    );
    // The kernel with exactly that text verifies.
    let twin = report["kernels"]
        .as_array()
        .and_then(|k| k.iter().find(|k| k["name"] == "clamp_row_assumed"))
        .expect("the assumed twin");
    assert_eq!(twin["status"], "verified", "{out}");

    let every = races_of(&report, "last_writer");
    assert_eq!(every.len(), 1, "{out}");
    assert_eq!(every[0]["raceCondition"]["condition"], Value::Null, "{out}");
    assert_eq!(
        every[0]["raceCondition"]["summary"],
        "races for every value of the kernel's parameters"
    );
    assert!(
        every[0]["fixes"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|x| x["precondition"] == false),
        "no assumption for a race no assumption rules out: {out}"
    );

    // A race under every width the kernel's own assumption allows: no
    // condition, no assumption (it would contradict the kernel's).
    let narrow = races_of(&report, "clamp_row_narrow");
    assert_eq!(narrow.len(), 1, "{out}");
    assert_eq!(narrow[0]["raceCondition"], Value::Null, "{out}");
    assert!(
        narrow[0]["fixes"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|x| x["precondition"] == false),
        "{out}"
    );

    // Without `--fixes` nothing is computed: the diagnostics come first.
    let mut args = vec!["--format=json"];
    args.extend(VERDICT_LIMITS);
    args.push(&path);
    let (_, out, _) = run(&args);
    assert!(!out.contains("raceCondition"), "{out}");

    // The terminal: a note under the finding, the assumption as a diff.
    let mut args = vec!["--fixes"];
    args.extend(VERDICT_LIMITS);
    args.push(&path);
    let (_, human, _) = run(&args);
    assert!(
        human.contains("= note: races only when `width < 16`\n"),
        "{human}"
    );
    assert!(
        human.contains("= note: races for every value of the kernel's parameters\n"),
        "{human}"
    );
    assert!(
        human.contains("help: Assume `width >= 16` (precondition)"),
        "{human}"
    );
    assert!(human.contains("+     __requires(width >= 16);"), "{human}");
}

/// Issue 28 item 7: a race whose collision needs two equal values read
/// from an input array (`tests/projects/input_conditions`) states the
/// property the array must have instead (`raceCondition`, the annotation
/// language's `!__distinct(slot)`), and is offered the verified,
/// compile-safe annotation stating it; the kernel with that very text
/// verifies. A race on an index the kernel computes gets no such property.
#[test]
fn a_race_through_an_input_array_states_the_property_it_needs() {
    let path = projects_dir()
        .join("input_conditions/slots.cu")
        .display()
        .to_string();
    let mut args = vec!["--format=json", "--fixes"];
    args.extend(VERDICT_LIMITS);
    args.push(&path);
    let (code, out, err) = run(&args);
    assert_eq!(code, 1, "{err}");
    let report: Value = serde_json::from_str(&out).expect("JSON");
    let status = |name: &str| {
        report["kernels"]
            .as_array()
            .and_then(|k| k.iter().find(|k| k["name"] == name))
            .map(|k| k["status"].clone())
    };
    let assumption_of = |kernel: &str, condition: &str, summary: &str, annotation: &str| {
        let races = races_of(&report, kernel);
        assert_eq!(races.len(), 1, "{out}");
        let c = &races[0]["raceCondition"];
        assert_eq!(c["condition"], condition, "{out}");
        assert_eq!(c["summary"], summary, "{out}");
        let fixes = races[0]["fixes"].as_array().expect("fixes");
        let assume = fixes
            .iter()
            .find(|x| x["precondition"] == true)
            .unwrap_or_else(|| panic!("an assumption fix: {out}"));
        assert_eq!(
            assume["title"],
            format!("Assume `{annotation}` (precondition)")
        );
        assert_eq!(assume["verified"], true, "{out}");
        let edits = assume["edits"].as_array().expect("edits");
        assert_eq!(edits.len(), 1);
        assert_eq!(
            edits[0]["newText"],
            format!("#ifdef __SYNCSCOPE__\n    __requires({annotation});\n#endif\n")
        );
    };
    assumption_of(
        "scatter_slots",
        "!__distinct(slot)",
        "races unless `slot` holds distinct values at the distinct indices the kernel reads",
        "__distinct(slot)",
    );
    assumption_of(
        "merge_places",
        "!__sorted(rank)",
        "races unless `rank` is sorted (non-decreasing) over the indices the kernel reads",
        "__sorted(rank)",
    );
    // The annotation the fix writes, written: verified; the status of the
    // racy kernels stays what it is (the property is the user's to claim).
    assert_eq!(
        status("scatter_slots_stated"),
        Some(serde_json::json!("verified"))
    );
    assert_eq!(status("scatter_slots"), Some(serde_json::json!("racy")));

    // An index computed in the kernel: a plain race, no input property.
    let halves = races_of(&report, "halves");
    assert_eq!(halves.len(), 1, "{out}");
    let summary = halves[0]["raceCondition"]["summary"].as_str().unwrap_or("");
    assert!(!summary.contains("unless"), "{out}");
    assert!(
        halves[0]["fixes"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|x| !x["title"].as_str().unwrap_or("").contains("__")),
        "{out}"
    );

    // The terminal: the property as a note, the annotation as a diff.
    let mut args = vec!["--fixes"];
    args.extend(VERDICT_LIMITS);
    args.push(&path);
    let (_, human, _) = run(&args);
    assert!(
        human.contains("= note: races unless `slot` holds distinct values"),
        "{human}"
    );
    assert!(
        human.contains("+     __requires(__distinct(slot));"),
        "{human}"
    );
}
