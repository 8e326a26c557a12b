//! The preprocessor against the system's C preprocessor: each file of
//! `tests/preprocessor/` is run through `cpp -P` (as C++17, the language
//! nvcc's device pass reads, with no predefined system macros and no
//! system include folders) and through Syncscope's preprocessor
//! (`syncscope_core::frontend::preprocess`), with the same `-D`s — the
//! device pass's macros (`__CUDACC__`, `__CUDA_ARCH__`, ...) and the file's
//! own — and the same `-I` folders; the two token streams must be equal
//! (layout is not compared: `cpp` keeps or drops blank lines and spaces
//! its own way).
//!
//! System headers: the analysis takes them from its built-in model (names,
//! no text), so here both preprocessors get the same stand-in folder,
//! `tests/preprocessor/sys`, for `<strings.h>`, `<stdio.h>`, ... .
//!
//! Where `cpp` is missing the test says so and fails under CI (`CI=true`;
//! CI installs it, `.ci/prerequisites`); elsewhere it says so and passes.

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("preprocessor")
}

/// One run: a file of the corpus, its own `-D`s (name, value) and its `-I`
/// folders (relative to the corpus).
type Case = (
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static [&'static str],
);

const CASES: &[Case] = &[
    ("macros.cu", &[], &[]),
    (
        "conditionals.cu",
        &[("WIDE", "2"), ("USE_DOUBLE", "1")],
        &[],
    ),
    ("conditionals.cu", &[("LEVEL_UNUSED", "1")], &[]),
    ("headers.cu", &[], &["vendor", "sys"]),
    ("include/tile_config.cuh", &[], &[]),
    ("vendor/c_api.h", &[], &["sys"]),
    ("kernels.cu", &[("BLOCK_ROWS", "4")], &["include", "sys"]),
];

/// Names `cpp -x c++` predefines itself (defining them again would only
/// warn): the device pass defines them to the same values.
const CPP_BUILTINS: &[&str] = &["__cplusplus"];

fn cpp_available() -> bool {
    Command::new("cpp")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn in_ci() -> bool {
    matches!(std::env::var("CI").as_deref(), Ok("true" | "1"))
}

fn defines_for(own: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut defines = syncscope_core::frontend::device_pass_macros(&Default::default());
    defines.extend(own.iter().map(|(n, v)| (n.to_string(), v.to_string())));
    defines
}

fn run_cpp(file: &Path, defines: &[(String, String)], dirs: &[PathBuf]) -> String {
    let mut cmd = Command::new("cpp");
    cmd.args(["-x", "c++", "-std=c++17", "-P", "-undef", "-nostdinc"]);
    for (n, v) in defines {
        if !CPP_BUILTINS.contains(&n.as_str()) {
            cmd.arg(format!("-D{n}={v}"));
        }
    }
    for d in dirs {
        cmd.arg("-I").arg(d);
    }
    cmd.arg(file);
    let out = cmd.output().expect("cpp runs");
    assert!(
        out.status.success(),
        "cpp failed on {}:\n{}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("cpp writes UTF-8 for UTF-8 input")
}

/// The preprocessing tokens of an output, written independently of the
/// preprocessor under test: identifiers and numbers, string and character
/// literals, and punctuators (longest first).
fn tokens(text: &str) -> Vec<String> {
    const PUNCTS: &[&str] = &[
        "...", "<<=", ">>=", "->*", "##", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
        "&&", "||", "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "::", ".*",
    ];
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_alphanumeric() || c == '_' {
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.')
            {
                i += 1;
            }
        } else if c == '"' || c == '\'' {
            i += 1;
            while i < chars.len() && chars[i] != c {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else {
            let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
            i += PUNCTS
                .iter()
                .find(|p| rest.starts_with(*p))
                .map_or(1, |p| p.len());
        }
        out.push(chars[start..i.min(chars.len())].iter().collect());
    }
    out
}

/// Where two token streams part, with some tokens around it.
fn first_difference(ours: &[String], theirs: &[String]) -> Option<String> {
    let at = ours
        .iter()
        .zip(theirs)
        .position(|(a, b)| a != b)
        .or_else(|| (ours.len() != theirs.len()).then(|| ours.len().min(theirs.len())))?;
    let around = |t: &[String]| t[at.saturating_sub(8)..(at + 8).min(t.len())].join(" ");
    Some(format!(
        "token {at}:\n  syncscope: … {}\n  cpp:       … {}",
        around(ours),
        around(theirs)
    ))
}

#[test]
fn preprocessor_agrees_with_the_system_cpp() {
    if !cpp_available() {
        let message = "the preprocessor differential test needs the system's C preprocessor \
                       (`cpp`, Debian package `cpp`) and did not run: it is missing";
        assert!(!in_ci(), "{message} (CI installs it: .ci/prerequisites)");
        eprintln!("SKIPPED: {message}");
        return;
    }
    let root = corpus();
    let mut failures = Vec::new();
    for (file, own, dirs) in CASES {
        let path = root.join(file);
        let text = std::fs::read_to_string(&path).expect("corpus file");
        let dirs: Vec<PathBuf> = dirs.iter().map(|d| root.join(d)).collect();
        let defines = defines_for(own);
        let ours = syncscope_core::frontend::preprocess(&path, &text, &defines, &dirs);
        assert!(
            ours.missing.is_empty() && ours.system.is_empty(),
            "{file}: headers not found: {:?} {:?}",
            ours.missing,
            ours.system
        );
        let theirs = run_cpp(&path, &defines, &dirs);
        let (ours_t, theirs_t) = (tokens(&ours.text), tokens(&theirs));
        assert!(
            theirs_t.len() > 10,
            "{file}: cpp wrote almost nothing: {theirs}"
        );
        if let Some(d) = first_difference(&ours_t, &theirs_t) {
            failures.push(format!("{file} with {own:?}: {d}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The tokenizer the comparison rests on splits what it must.
#[test]
fn the_comparison_tokenizes_what_it_compares() {
    assert_eq!(
        tokens("a+=b->c \"x y\" 'q' 1.5e3 ... ##"),
        ["a", "+=", "b", "->", "c", "\"x y\"", "'q'", "1.5e3", "...", "##"]
    );
    assert_ne!(tokens("a b"), tokens("ab"));
}
