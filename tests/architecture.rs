//! Architecture checks that keep the core's shape (docs/architecture.md):
//!
//! - the core's top-level modules form one pipeline, and a module may use
//!   only modules of an earlier layer (so there is no import cycle);
//! - only the `analysis` driver runs the front end (`parse`, `lower_file`):
//!   nothing below it re-parses or re-lowers text;
//! - the core names no LSP, JSON-RPC or async crate;
//! - every dependency a crate declares is used by that crate;
//! - inside `verify`, the checks depend on a shared context and the engine
//!   runs them: no module imports the engine, and the imports form no
//!   circle.
//!
//! These read the source as text: they are cheap, need no extra tool, and a
//! failure names the file and the line to look at.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn core_src() -> PathBuf {
    root().join("server/syncscope-core/src")
}

/// The core's layers, earliest first. A module may use modules of earlier
/// layers only. A new top-level module must be placed here (and in the code
/// map of docs/architecture.md).
const LAYERS: &[(&str, &[&str])] = &[
    (
        "plain data and utilities",
        &["report", "parallel", "directives", "symbols"],
    ),
    ("the model", &["model"]),
    ("configuration and caches", &["options", "cache"]),
    ("syntax", &["syntax"]),
    ("project", &["project"]),
    ("front end", &["frontend"]),
    ("verification", &["verify"]),
    ("the driver", &["analysis"]),
    ("equivalence of two kernels", &["equiv"]),
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, ms)| ms.contains(&module))
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    syncscope_tests::files_with_extension(dir, "rs")
}

/// The top-level module a core source file belongs to (`None` for lib.rs).
fn module_of(file: &Path) -> Option<String> {
    let rel = file.strip_prefix(core_src()).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    let name = first.trim_end_matches(".rs").to_string();
    (name != "lib").then_some(name)
}

/// The code of a file without comments (line comments and doc comments),
/// and without its `#[cfg(test)]` module at the end, line by line.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        let code = match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        };
        out.push((i + 1, code.to_string()));
    }
    out
}

/// The crate-local modules a line refers to: `crate::name`, and the names
/// in `use crate::{a, b::c}`.
fn crate_refs(line: &str) -> Vec<String> {
    refs_after(line, "crate::")
}

/// The first names of the paths that start with `prefix` in a line:
/// `prefix` followed by `name` or by `{a, b::c}`.
fn refs_after(line: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find(prefix) {
        let after = &rest[at + prefix.len()..];
        if let Some(group) = after.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for part in group[..end].split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        } else {
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
        rest = after;
    }
    out
}

#[test]
fn core_modules_only_use_earlier_layers() {
    let mut problems = Vec::new();
    let top_level: Vec<String> = std::fs::read_dir(core_src())
        .unwrap()
        .flatten()
        .filter_map(|e| module_of(&e.path()))
        .collect();
    for m in &top_level {
        if layer_of(m).is_none() {
            problems.push(format!(
                "core module `{m}` has no layer: add it to LAYERS in tests/architecture.rs and to docs/architecture.md"
            ));
        }
    }
    for file in rust_files(&core_src()) {
        let Some(module) = module_of(&file) else {
            continue;
        };
        let Some(own) = layer_of(&module) else {
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        for (line_no, code) in code_lines(&text) {
            for used in crate_refs(&code) {
                if used == module || !top_level.contains(&used) {
                    continue;
                }
                match layer_of(&used) {
                    Some(l) if l < own => {}
                    _ => problems.push(format!(
                        "{}:{line_no}: `{module}` ({}) uses `{used}`, which is not in an earlier layer",
                        file.display(),
                        LAYERS[own].0
                    )),
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_layering_check_sees_a_backward_import() {
    // The check itself: a reference from the front end to the driver is
    // found, in both spellings.
    assert_eq!(crate_refs("use crate::analysis::fixes;"), ["analysis"]);
    assert_eq!(
        crate_refs("use crate::{model::Kernel, verify};"),
        ["model", "verify"]
    );
    assert!(layer_of("analysis") > layer_of("frontend"));
    assert!(layer_of("verify") > layer_of("model"));
}

#[test]
fn only_the_driver_runs_the_front_end() {
    // Parsing or lowering text again below the driver would send work back
    // up the pipeline (quick-fixes once re-parsed the edited text).
    let entry_points = [
        "syntax::parse(",
        "crate::parse(",
        "lower_file(",
        "lower_file_reusing(",
    ];
    let mut problems = Vec::new();
    for file in rust_files(&core_src()) {
        let module = module_of(&file);
        let allowed = match module.as_deref() {
            None | Some("analysis") => true,
            // `lower_file` is defined in the front end; `parse` in syntax.
            Some("frontend") | Some("syntax") => true,
            _ => false,
        };
        if allowed {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (line_no, code) in code_lines(&text) {
            for e in entry_points {
                if code.contains(e) {
                    problems.push(format!(
                        "{}:{line_no}: calls `{e}..)` below the analysis driver",
                        file.display()
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_core_knows_nothing_of_lsp_or_async() {
    let forbidden = ["tower_lsp", "lsp_types", "tokio", "async fn", ".await"];
    let mut problems = Vec::new();
    for file in rust_files(&core_src()) {
        let text = std::fs::read_to_string(&file).unwrap();
        for (line_no, code) in code_lines(&text) {
            for f in forbidden {
                if code.contains(f) {
                    problems.push(format!("{}:{line_no}: `{f}`", file.display()));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The simulator is the oracle the model is tested against: it must share
/// no code with the core (docs/architecture.md), or a bug in both would
/// agree with itself.
#[test]
fn the_simulator_shares_no_code_with_the_core() {
    let manifest = std::fs::read_to_string(root().join("server/syncscope-sim/Cargo.toml")).unwrap();
    for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
        let names = dependency_names(&manifest, section);
        assert!(
            !names.iter().any(|n| n.starts_with("syncscope")),
            "server/syncscope-sim/Cargo.toml [{section}] names {names:?}"
        );
    }
    let files = rust_files(&root().join("server/syncscope-sim"));
    assert!(!files.is_empty());
    assert!(!uses_crate(&files, "syncscope_core"));
}

/// The names in one `[section]` of a Cargo.toml (`name = ...`,
/// `name.workspace = true`, `[section.name]` tables).
fn dependency_names(manifest: &str, section: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            let header = t.trim_matches(|c| c == '[' || c == ']');
            inside = header == section;
            if let Some(name) = header.strip_prefix(&format!("{section}.")) {
                out.push(name.to_string());
            }
            continue;
        }
        if inside && !t.is_empty() && !t.starts_with('#') {
            let name: String = t
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
                .collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out
}

/// Whether Rust code in `files` names the crate `ident`: a whole word
/// followed by `::` (paths, attributes) or after `use `/`extern crate `.
fn uses_crate(files: &[PathBuf], ident: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let names_it = |code: &str| {
        code.match_indices(ident).any(|(at, _)| {
            let before = &code[..at];
            let after = &code[at + ident.len()..];
            let whole = !before.chars().next_back().is_some_and(is_ident)
                && !after.chars().next().is_some_and(is_ident);
            whole
                && (after.starts_with("::")
                    || before.trim_end().ends_with("use")
                    || before.trim_end().ends_with("extern crate"))
        })
    };
    files.iter().any(|f| {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        text.lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .any(names_it)
    })
}

#[test]
fn every_declared_dependency_is_used() {
    // (manifest folder, folders whose code the [dependencies] serve,
    //  folders whose code the [dev-dependencies] serve)
    let crates: &[(&str, &[&str], &[&str])] = &[
        (
            "server/syncscope-core",
            &["src"],
            &["src", "tests", "examples"],
        ),
        (
            "server/syncscope-lsp",
            &["src"],
            &["src", "tests", "examples"],
        ),
        ("server/syncscope", &["src"], &["src", "tests"]),
        ("server/syncscope-sim", &["src"], &["src", "tests"]),
        ("tests", &["."], &["."]),
    ];
    let mut problems = Vec::new();
    let mut used_anywhere: BTreeMap<String, bool> = BTreeMap::new();
    for (dir, code_dirs, dev_dirs) in crates {
        let manifest = std::fs::read_to_string(root().join(dir).join("Cargo.toml")).unwrap();
        for (section, dirs) in [("dependencies", code_dirs), ("dev-dependencies", dev_dirs)] {
            let files: Vec<PathBuf> = dirs
                .iter()
                .flat_map(|d| rust_files(&root().join(dir).join(d)))
                .filter(|f| !f.components().any(|c| c.as_os_str() == "target"))
                .collect();
            for name in dependency_names(&manifest, section) {
                let ident = name.replace('-', "_");
                let used = uses_crate(&files, &ident);
                *used_anywhere.entry(name.clone()).or_default() |= used;
                if !used {
                    problems.push(format!(
                        "{dir}/Cargo.toml: [{section}] `{name}` is not used by that crate's code"
                    ));
                }
            }
        }
    }
    let workspace = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    for name in dependency_names(&workspace, "workspace.dependencies") {
        if !used_anywhere.get(&name).copied().unwrap_or(false) {
            problems.push(format!(
                "Cargo.toml: [workspace.dependencies] `{name}` is used by no member"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_dependency_check_matches_whole_crate_names() {
    let dir = std::env::temp_dir().join(format!("syncscope-arch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("a.rs");
    std::fs::write(
        &file,
        "use serde_json::Value;\n// serde::Serialize in a comment\n",
    )
    .unwrap();
    let files = [file];
    assert!(uses_crate(&files, "serde_json"));
    assert!(!uses_crate(&files, "serde"));
    assert!(!uses_crate(&files, "json"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_dependency_check_reads_manifests() {
    let manifest = "[package]\nname = \"x\"\n\n[dependencies]\nfoo-bar.workspace = true\nbaz = \"1\"\n# note\n\n[dependencies.qux]\nversion = \"2\"\n\n[dev-dependencies]\ninsta = \"1\"\n";
    assert_eq!(
        dependency_names(manifest, "dependencies"),
        ["foo-bar", "baz", "qux"]
    );
    assert_eq!(dependency_names(manifest, "dev-dependencies"), ["insta"]);
}

/// Output shapes live in the core (plain data) or the binary, never in the
/// LSP crate: the binary uses `syncscope_lsp` only to run the server.
#[test]
fn the_binary_uses_the_lsp_crate_only_to_run_the_server() {
    let mut problems = Vec::new();
    for file in rust_files(&root().join("server/syncscope/src")) {
        let text = std::fs::read_to_string(&file).unwrap();
        for (line_no, code) in code_lines(&text) {
            for (at, _) in code.match_indices("syncscope_lsp::") {
                if !code[at..].starts_with("syncscope_lsp::run_stdio") {
                    problems.push(format!("{}:{line_no}: {}", file.display(), code.trim()));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The modules of `verify` (by file name; `mod.rs`, which declares them,
/// left out) and the sibling modules each one's code names: `super::x` in
/// a module directly under `verify`, `crate::verify::x` anywhere.
fn verify_imports() -> BTreeMap<String, BTreeSet<String>> {
    let dir = core_src().join("verify");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(&dir) {
        let rel = file.strip_prefix(&dir).unwrap();
        let parts: Vec<&str> = rel.iter().filter_map(|c| c.to_str()).collect();
        let module = parts[0].trim_end_matches(".rs").to_string();
        if module == "mod" {
            continue;
        }
        // `super` is `verify` in `verify/x.rs` and `verify/x/mod.rs`.
        let super_is_verify = parts.len() == 1 || parts == [parts[0], "mod.rs"];
        let text = std::fs::read_to_string(&file).unwrap();
        let uses = graph.entry(module.clone()).or_default();
        for (_, code) in code_lines(&text) {
            let mut names = refs_after(&code, "crate::verify::");
            if super_is_verify {
                names.extend(refs_after(&code, "super::"));
            }
            uses.extend(names.into_iter().filter(|n| *n != module));
        }
    }
    graph
}

/// A circle of `graph` (its modules in order, the first repeated at the
/// end), if there is one.
fn find_circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut circle = path[at..].to_vec();
            circle.push(m.to_string());
            return Some(circle);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for next in graph.get(m).into_iter().flatten() {
            if let Some(circle) = visit(next, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut Vec::new(), &mut done))
}

/// The checks of `verify` are functions over one shared context
/// (`context`), and the engine runs them in sequence: a check that
/// imported the engine's helpers back made the one import circle of the
/// core.
#[test]
fn no_verify_module_imports_the_engine() {
    let graph = verify_imports();
    assert!(graph.contains_key("engine") && graph.contains_key("context"));
    let importers: Vec<&String> = graph
        .iter()
        .filter(|(_, uses)| uses.contains("engine"))
        .map(|(m, _)| m)
        .collect();
    assert!(
        importers.is_empty(),
        "verify modules that import `engine` (move what they use into `context`): {importers:?}"
    );
}

#[test]
fn the_verify_modules_import_no_circle() {
    let graph = verify_imports();
    assert!(
        graph["engine"].contains("context"),
        "the import reading sees the engine's use of the context"
    );
    if let Some(circle) = find_circle(&graph) {
        panic!("import circle inside verify: {}", circle.join(" -> "));
    }
}

#[test]
fn the_circle_check_sees_a_circle() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    let circle = graph(&[
        ("engine", "races"),
        ("races", "witness"),
        ("witness", "engine"),
    ]);
    assert_eq!(
        find_circle(&circle),
        Some(vec![
            "engine".to_string(),
            "races".to_string(),
            "witness".to_string(),
            "engine".to_string()
        ])
    );
    let dag = graph(&[
        ("engine", "races"),
        ("engine", "context"),
        ("races", "context"),
    ]);
    assert_eq!(find_circle(&dag), None);
    assert_eq!(
        refs_after("use super::{context::*, races::sel};", "super::"),
        ["context", "races"]
    );
    assert_eq!(
        refs_after("pub(super) use super::sweep::Launch;", "super::"),
        ["sweep"]
    );
}
