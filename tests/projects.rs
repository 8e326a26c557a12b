//! Multi-file fixtures (`tests/projects`), checked through the CLI's own
//! code path: each `.cu` file is analysed in its project (headers found
//! relative to it, with `-I`, through syncscope.toml or compile_commands.json;
//! launch sites in the project's host code) and must match its inline
//! expectations. `server/syncscope/tests/projects_lsp.rs` checks the same
//! fixtures through the language server.

use std::path::PathBuf;
use syncscope_tests::*;

fn check_file(path: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("fixture is UTF-8");
    let e = expectations(&text);
    let flags = project_flags(&e, path);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let mut args = syncscope::cli::parse_check_args(&flags).expect("valid syncscope-args");
    args.paths = vec![path.to_path_buf()];
    let (results, errors) = syncscope::cli::results(&args);
    let mut problems: Vec<String> = errors;
    let Some(r) = results.first() else {
        return vec!["no result".into()];
    };
    problems.extend(check_expectations(&e, &r.report));
    // An include note groups the headers of several `#include` lines:
    // each of its lines counts (the first is the finding's, the others
    // its related locations).
    let found: Vec<(usize, String)> = r
        .report
        .findings
        .iter()
        .flat_map(|f| {
            let related = f
                .related
                .iter()
                .filter(|_| f.kind == syncscope_core::FindingKind::Include);
            std::iter::once(&f.span)
                .chain(related.map(|r| &r.span))
                .map(|s| (s.start.line as usize + 1, f.kind.code().to_string()))
        })
        .collect();
    problems.extend(check_include_markers(&e, &found));
    problems
}

#[test]
fn project_fixtures_match_their_expectations_through_the_cli() {
    let files = project_fixture_files(&projects_dir());
    assert!(
        files.len() >= 8,
        "expected the project fixtures, found {files:?}"
    );
    // The fixtures are independent: checked on every core, listed in order.
    let failures: Vec<String> = on_every_core(&files, |_, f| {
        let p = check_file(f);
        (!p.is_empty()).then(|| format!("{}:\n  {}", f.display(), p.join("\n  ")))
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Issue 32, item 5: each assumption names where it came from (the
/// annotation's line, the launch's file and line), and the system headers
/// outside the built-in model are one note listing only those on the
/// preprocessor's taken path.
#[test]
fn assumptions_name_their_origin_and_include_notes_keep_to_the_taken_path() {
    let file = projects_dir().join("origins/rows.cu");
    let text = std::fs::read_to_string(&file).unwrap();
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let host = std::fs::read_to_string(projects_dir().join("origins/host.cu")).unwrap();
    let launch_line = host.lines().position(|l| l.contains("<<<")).unwrap() + 1;
    let mut args = syncscope::cli::parse_check_args(&VERDICT_LIMITS).unwrap();
    args.paths = vec![file];
    let (results, _) = syncscope::cli::results(&args);
    let findings = &results[0].report.findings;
    let of_kind = |k: syncscope_core::FindingKind| -> Vec<&syncscope_core::Finding> {
        findings.iter().filter(|f| f.kind == k).collect()
    };
    let assumption = of_kind(syncscope_core::FindingKind::Assumption);
    assert_eq!(assumption.len(), 1, "{findings:#?}");
    let message = &assumption[0].message;
    let annotation = format!(
        "`__requires(width % 64 == 0)` (annotation at line {})",
        line_of("__requires")
    );
    assert!(message.contains(&annotation), "{message}");
    assert!(
        message.contains(&format!(
            "`gridDim.y == 1`, `gridDim.z == 1` (from the launch at host.cu:{launch_line})"
        )),
        "{message}"
    );
    // A launch fact is never shown as an annotation of the kernel.
    assert!(!message.contains("__requires(gridDim"), "{message}");
    let include = of_kind(syncscope_core::FindingKind::Include);
    assert_eq!(include.len(), 1, "one grouped note: {include:#?}");
    let note = &include[0].message;
    for taken in ["<cuda_profiler_api.h>", "<numa.h>", "<x86intrin.h>"] {
        assert!(note.contains(taken), "{taken} missing from: {note}");
    }
    for skipped in ["windows.h", "win32_clock.h", "host_only_profiler.h"] {
        assert!(
            !note.contains(skipped),
            "{skipped} is off the taken path: {note}"
        );
    }
    assert_eq!(
        include[0].related.len(),
        1,
        "the headers of timing.h come in through its include"
    );
}

/// The launch assumption a kernel was checked under is in its report (and
/// so in JSON, SARIF, the human summary and the hover).
#[test]
fn launch_site_assumptions_are_reported() {
    let file = projects_dir().join("launch/kernels.cu");
    let mut args = syncscope::cli::parse_check_args(&VERDICT_LIMITS).unwrap();
    args.paths = vec![file];
    let (results, _) = syncscope::cli::results(&args);
    let kernels = &results[0].report.kernels;
    let launch = |name: &str| {
        kernels
            .iter()
            .find(|k| k.name == name)
            .and_then(|k| k.launch.clone())
            .unwrap_or_default()
    };
    assert!(
        launch("matmul").starts_with("block (16,16,1)") && launch("matmul").contains("host.cu:"),
        "{}",
        launch("matmul")
    );
    assert!(
        launch("scale_by_row").contains("blockDim.y == 1"),
        "{}",
        launch("scale_by_row")
    );
    let fold = kernels.iter().find(|k| k.name == "fold").unwrap();
    assert_eq!(fold.status, syncscope_core::KernelStatus::Racy);
    let race = results[0]
        .report
        .findings
        .iter()
        .find(|f| {
            f.kernel.as_deref() == Some("fold") && f.kind == syncscope_core::FindingKind::DataRace
        })
        .unwrap();
    assert!(race.message.contains("block (256,1,1)"), "{}", race.message);
    let json = syncscope::output::json(&results);
    assert!(json.contains("\"launch\": \"block (16,16,1)"), "{json}");
}

/// A launch whose facts are another launch's and more (the same sizes,
/// inside one more condition) is covered by it: each kernel is checked once,
/// under the launch with fewer facts, whose description names the covered
/// site, and a race under it is reported once.
#[test]
fn a_launch_with_more_facts_is_covered_by_the_same_launch_with_fewer() {
    let file = projects_dir().join("launch_cover/kernels.cu");
    let host = std::fs::read_to_string(projects_dir().join("launch_cover/host.cu")).unwrap();
    let lines_of = |needle: &str| -> Vec<usize> {
        host.lines()
            .enumerate()
            .filter(|(_, l)| l.contains(needle))
            .map(|(i, _)| i + 1)
            .collect()
    };
    let mut args = syncscope::cli::parse_check_args(&VERDICT_LIMITS).unwrap();
    args.paths = vec![file];
    let (results, _) = syncscope::cli::results(&args);
    let report = &results[0].report;
    for name in ["stamp", "halve"] {
        let sites = lines_of(&format!("{name}<<<"));
        assert_eq!(sites.len(), 2, "two launches of {name} in host.cu");
        let k = report.kernels.iter().find(|k| k.name == name).unwrap();
        let launch = k.launch.clone().unwrap_or_default();
        let expected = format!(
            "(launch at host.cu:{}, which covers the same launch with more facts at host.cu:{})",
            sites[0], sites[1]
        );
        assert!(launch.ends_with(&expected), "{name}: {launch}");
        assert!(!launch.contains("; also "), "{name} checked once: {launch}");
    }
    let races: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.kind == syncscope_core::FindingKind::DataRace)
        .collect();
    assert_eq!(races.len(), 1, "{races:?}");
    assert_eq!(races[0].kernel.as_deref(), Some("halve"));
}

/// `-I`, syncscope.toml's include-dirs and compile_commands.json feed one
/// search; without them the same fixture's header is missing.
#[test]
fn without_its_include_folder_a_header_is_missing() {
    let file: PathBuf = projects_dir().join("include_dirs/src/fir.cu");
    let mut args = syncscope::cli::parse_check_args(&VERDICT_LIMITS).unwrap();
    args.paths = vec![file];
    let (results, _) = syncscope::cli::results(&args);
    let r = &results[0].report;
    let missing: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.kind == syncscope_core::FindingKind::Include)
        .collect();
    assert_eq!(missing.len(), 1, "{:#?}", r.findings);
    assert!(missing[0].message.contains("dsp/fir.cuh"));
    assert!(
        !r.findings
            .iter()
            .any(|f| f.kind == syncscope_core::FindingKind::SyntaxError),
        "no cascade of syntax errors"
    );
    assert_eq!(
        r.kernels[0].status,
        syncscope_core::KernelStatus::NotVerified
    );
    // Its verdict is known before any query: none is asked.
    assert_eq!(r.kernels[0].queries, 0, "{:#?}", r.kernels);
    assert_eq!(r.stats.queries_run, 0, "{:#?}", r.stats);
}

/// A kernel also run in a way its `<<<…>>>` sites do not show is checked
/// for a launch of any size, and a note and its launch record name the use
/// (file, line, what); a non-launching use keeps the site's sizes; a
/// runtime launch and a launch through a pointer are launches of their own.
#[test]
fn launches_not_understood_are_named() {
    let file = projects_dir().join("launch_ways/kernels.cu");
    let mut args = syncscope::cli::parse_check_args(&VERDICT_LIMITS).unwrap();
    args.paths = vec![file];
    let (results, _) = syncscope::cli::results(&args);
    let report = &results[0].report;
    let launch = |name: &str| {
        report
            .kernels
            .iter()
            .find(|k| k.name == name)
            .and_then(|k| k.launch.clone())
            .unwrap_or_default()
    };
    let host = std::fs::read_to_string(projects_dir().join("launch_ways/host.cu")).unwrap();
    let line_of = |needle: &str| {
        let i = host.lines().position(|l| l.contains(needle)).unwrap();
        format!("host.cu:{}", i + 1)
    };
    // `cudaLaunchKernel((const void *)pack_runtime, dim3(2), dim3(256), ..)`
    // is read as a launch of its own.
    let runtime = launch("pack_runtime");
    assert!(
        runtime.starts_with("block (256,1,1), grid (2,1,1)")
            && runtime.contains(&line_of("(const void *)pack_runtime")),
        "{runtime}"
    );
    // Passed to a helper that launches its parameter: not understood.
    let helper = launch("pack_helper");
    assert!(
        helper.starts_with("block symbolic, grid symbolic")
            && helper.contains(&line_of("launch_with(pack_helper"))
            && helper.contains("passed to `launch_with`"),
        "{helper}"
    );
    let note = report
        .findings
        .iter()
        .find(|f| {
            f.kind == syncscope_core::FindingKind::Note && f.kernel.as_deref() == Some("sum_helper")
        })
        .expect("a note on sum_helper");
    assert!(
        note.message.contains(&line_of("launch_with(sum_helper"))
            && note.message.contains("launch_with"),
        "{}",
        note.message
    );
    // Through a pointer set to it: the launch through the pointer.
    assert!(
        launch("pack_pointer").starts_with("block (128,1,1), grid (4,1,1)"),
        "{}",
        launch("pack_pointer")
    );
    assert!(
        launch("pack_attr").starts_with("block (128,1,1)"),
        "{}",
        launch("pack_attr")
    );
    assert!(
        launch("pack_fields").starts_with("block (256,1,1)"),
        "{}",
        launch("pack_fields")
    );
}

/// The host C++ compiler, run on a kernel file with the CUDA shim
/// (`tests/tools/cuda_host_shim.h`): how these tests stand in for nvcc,
/// which CI machines do not have. `c++` comes with the C toolchain Rust
/// links with (`.ci/prerequisites` checks for it).
fn host_compile(file: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let root = projects_dir().join("../..");
    let shim = root.join("tests/tools/cuda_host_shim.h");
    std::process::Command::new("c++")
        .args([
            "-x",
            "c++",
            "-std=c++17",
            "-fsyntax-only",
            "-Wall",
            "-Werror",
        ])
        .arg("-include")
        .arg(&shim)
        .arg("-I")
        .arg(root.join("include"))
        .args(extra)
        .arg(file)
        .output()
        .expect("the host C++ compiler `c++` runs (install a C++ toolchain: build-essential)")
}

/// Issue 32 item 4: the annotated fixtures (and the corpus's
/// `spec/compiled_annotations.cu`) compile with a real compiler
/// through `include/syncscope.h`, and only through it: read as Syncscope
/// reads them (`__SYNCSCOPE__` defined) the compiler rejects `__requires`.
#[test]
fn annotated_fixtures_compile_with_a_real_compiler() {
    let mut files = cu_files(&projects_dir().join("annotations"));
    assert!(files.len() >= 2, "annotation fixtures: {files:?}");
    files.push(projects_dir().join("../corpus/spec/compiled_annotations.cu"));
    for f in &files {
        let out = host_compile(f, &[]);
        assert!(
            out.status.success(),
            "{} does not compile with the header:\n{}",
            f.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let raw = host_compile(f, &["-D__SYNCSCOPE__"]);
        let stderr = String::from_utf8_lossy(&raw.stderr);
        assert!(
            !raw.status.success() && stderr.contains("__requires"),
            "{}: without the header's definitions the compiler should reject `__requires`, got:\n{stderr}",
            f.display()
        );
    }
}

/// Issue 32 item 4: the assumption a quick-fix adds is the compile-safe
/// form. A racy kernel in a file without the header gets the guarded
/// `__requires`: the fixed file verifies and compiles; in a file that
/// includes the header the plain annotation does both.
#[test]
fn an_assumption_quick_fix_verifies_and_compiles() {
    let kernel = "__global__ void fold(const int *in, int *out)\n{\n    __shared__ int s[32];\n    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n    s[threadIdx.x % 32] = in[i];\n    __syncthreads();\n    out[i] = s[(threadIdx.x + 1) % 32];\n}\n";
    let status = |text: &str| {
        let r = syncscope_core::analyze_source(text, &syncscope_core::Options::default());
        r.kernels
            .iter()
            .find(|k| k.name == "fold")
            .map(|k| k.status)
    };
    assert_eq!(status(kernel), Some(syncscope_core::KernelStatus::Racy));
    let dir = std::env::temp_dir().join(format!("syncscope-assume-fix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, prefix, guarded) in [
        ("bare.cu", "", true),
        ("with_header.cu", "#include \"syncscope.h\"\n", false),
    ] {
        let text = format!("{prefix}{kernel}");
        let fix = syncscope_core::analysis::assumption::assumption_fix(
            &text,
            "fold",
            "blockDim.x <= 32 && blockDim.y == 1 && blockDim.z == 1",
            false,
        )
        .expect("the kernel is found");
        let edit = &fix.edits[0];
        let at = edit.span.start.offset as usize;
        let fixed = format!("{}{}{}", &text[..at], edit.new_text, &text[at..]);
        assert_eq!(
            fixed.contains("#ifdef __SYNCSCOPE__\n    __requires("),
            guarded,
            "{name}:\n{fixed}"
        );
        assert_eq!(
            status(&fixed),
            Some(syncscope_core::KernelStatus::Verified),
            "{name}:\n{fixed}"
        );
        let path = dir.join(name);
        std::fs::write(&path, &fixed).unwrap();
        let out = host_compile(&path, &[]);
        assert!(
            out.status.success(),
            "{name} does not compile after the fix:\n{fixed}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
