//! Architecture checks that keep the core's shape (docs/architecture.md):
//!
//! - the core's top-level modules form one pipeline, and a module may use
//!   only modules of an earlier layer (so there is no import cycle);
//! - only the `analysis` driver runs the front end (`parse`, `lower_file`):
//!   nothing below it re-parses or re-lowers text;
//! - the core names no LSP, JSON-RPC or async crate;
//! - every dependency a crate declares is used by that crate;
//! - inside `verify`, the checks depend on a shared context and the engine
//!   runs them: no module imports the engine;
//! - inside every folder of the core, the modules' imports form no circle.
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
    // The project model reads a file's `#if`s with the front end's
    // preprocessor (which includes a build takes).
    ("front end", &["frontend"]),
    ("project", &["project"]),
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

/// A folder of the core as a module path (`["frontend", "lower"]`; the
/// crate root is `[]`).
type Folder = Vec<String>;

/// The module path of a core source file: `verify/races.rs` is
/// `verify::races`, `frontend/lower/mod.rs` is `frontend::lower`, `lib.rs`
/// is the crate root.
fn module_path(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(core_src()).unwrap();
    let mut path: Vec<String> = rel
        .iter()
        .map(|c| c.to_str().unwrap().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(path.last().map(String::as_str), Some("mod" | "lib")) {
        path.pop();
    }
    path
}

/// The tokens of Rust code, as far as paths need them: identifiers, `::`
/// and single characters (white space dropped).
fn tokens(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
            continue;
        }
        if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push("::".to_string());
            i += 2;
            continue;
        }
        if !c.is_whitespace() {
            out.push(c.to_string());
        }
        i += 1;
    }
    out
}

/// The paths of one use tree (or one path of an expression) that starts
/// at `tokens[at]`, under `prefix`: `a::{b, c::{d, self}}` is `a::b`,
/// `a::c::d` and `a::c`. Returns them and the index after the tree.
fn use_tree(tokens: &[String], mut at: usize, prefix: &[String]) -> (Vec<Vec<String>>, usize) {
    let mut path = prefix.to_vec();
    let mut out = Vec::new();
    while let Some(token) = tokens.get(at) {
        match token.as_str() {
            "{" => {
                at += 1;
                while let Some(next) = tokens.get(at) {
                    match next.as_str() {
                        "}" => {
                            at += 1;
                            break;
                        }
                        "," => at += 1,
                        _ => {
                            let (paths, after) = use_tree(tokens, at, &path);
                            out.extend(paths);
                            // A token no tree takes ends the group.
                            if after == at {
                                return (out, at);
                            }
                            at = after;
                        }
                    }
                }
                return (out, at);
            }
            "*" => at += 1,
            // `a::{self}` names `a` itself.
            "self" => at += 1,
            t if t.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                path.push(t.to_string());
                at += 1;
            }
            _ => break,
        }
        if tokens.get(at).map(String::as_str) != Some("::") {
            break;
        }
        at += 1;
    }
    if path.len() > prefix.len() || out.is_empty() {
        out.push(path);
    }
    (out, at)
}

/// Every path the code of module `here` names from `crate`, `super` or
/// `self` (a `use` or a path in an expression, a group across lines
/// included), as absolute module paths: in `frontend::lower::calls`,
/// `use super::{places::Place, super::collect};` names
/// `frontend::lower::places::Place` and `frontend::collect`.
fn named_paths(code: &str, here: &[String]) -> Vec<Vec<String>> {
    let tokens = tokens(code);
    let mut out = Vec::new();
    for at in 0..tokens.len() {
        let start = match tokens[at].as_str() {
            "crate" => Vec::new(),
            "self" => here.to_vec(),
            "super" => here[..here.len().saturating_sub(1)].to_vec(),
            _ => continue,
        };
        // The start of a path only, and not `pub(crate)` or `self.field`.
        let continues = at > 0 && tokens[at - 1] == "::";
        if continues || tokens.get(at + 1).map(String::as_str) != Some("::") {
            continue;
        }
        let mut prefix = start;
        let mut next = at + 2;
        while tokens.get(next).map(String::as_str) == Some("super")
            && tokens.get(next + 1).map(String::as_str) == Some("::")
        {
            prefix.pop();
            next += 2;
        }
        out.extend(use_tree(&tokens, next, &prefix).0);
    }
    out
}

/// For every folder of the core (the crate root too), its modules and the
/// sibling modules each one's code names, however it spells them
/// (`super::x`, `crate::folder::x`, `super::super::x`). A folder's
/// `mod.rs` declares its modules and is left out of its graph; a module
/// that is a folder counts with the code of every file inside it.
fn folder_imports() -> BTreeMap<Folder, BTreeMap<String, BTreeSet<String>>> {
    let files: Vec<(PathBuf, Vec<String>)> = rust_files(&core_src())
        .into_iter()
        .map(|f| {
            let m = module_path(&f);
            (f, m)
        })
        .collect();
    let mut graphs: BTreeMap<Folder, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (_, module) in &files {
        for k in 0..module.len() {
            graphs
                .entry(module[..k].to_vec())
                .or_default()
                .entry(module[k].clone())
                .or_default();
        }
    }
    for (file, module) in &files {
        let code: Vec<String> = code_lines(&std::fs::read_to_string(file).unwrap())
            .into_iter()
            .map(|(_, code)| code)
            .collect();
        let named = named_paths(&code.join("\n"), module);
        for k in 0..module.len() {
            let (folder, own) = (&module[..k], &module[k]);
            let graph = graphs.get_mut(folder).unwrap();
            let siblings: BTreeSet<String> = graph.keys().cloned().collect();
            let uses = graph.get_mut(own).unwrap();
            for path in &named {
                if path.len() > k && path[..k] == *folder {
                    let used = &path[k];
                    if used != own && siblings.contains(used) {
                        uses.insert(used.clone());
                    }
                }
            }
        }
    }
    graphs
}

fn folder(path: &str) -> Folder {
    path.split("::").map(str::to_string).collect()
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
/// imported the engine's helpers back made an import circle of the core.
#[test]
fn no_verify_module_imports_the_engine() {
    let graph = &folder_imports()[&folder("verify")];
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

/// Inside every folder of the core the imports go one way: a circle
/// (`config` using `settings` for the table while `settings` used
/// `config` for the value types) means two modules are one concern split
/// badly, or a shared piece belongs in a module of its own.
#[test]
fn no_folder_of_the_core_imports_in_a_circle() {
    let graphs = folder_imports();
    // The reading sees the imports it must: the crate root, nested folders,
    // and each spelling.
    for f in ["", "project", "verify", "frontend::lower::asynccopy"] {
        let f = if f.is_empty() { Vec::new() } else { folder(f) };
        assert!(
            graphs.contains_key(&f),
            "no folder {f:?} in {:?}",
            graphs.keys()
        );
    }
    assert!(graphs[&folder("verify")]["engine"].contains("context"));
    assert!(graphs[&folder("project")]["config"].contains("settings"));
    assert!(graphs[&Vec::new()]["analysis"].contains("frontend"));
    let circles: Vec<String> = graphs
        .iter()
        .filter_map(|(f, graph)| {
            let circle = find_circle(graph)?;
            Some(format!("in `{}`: {}", f.join("::"), circle.join(" -> ")))
        })
        .collect();
    assert!(
        circles.is_empty(),
        "import circles in the core:\n{}",
        circles.join("\n")
    );
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
    let here = folder("frontend::lower::calls");
    let named = |code: &str| -> Vec<String> {
        named_paths(code, &here)
            .iter()
            .map(|p| p.join("::"))
            .collect()
    };
    assert_eq!(
        named("use super::{context::*, races::sel};"),
        ["frontend::lower::context", "frontend::lower::races::sel"]
    );
    assert_eq!(
        named("pub(super) use super::sweep::Launch;"),
        ["frontend::lower::sweep::Launch"]
    );
    // Across lines, nested groups, `self` in a group, `super::super`.
    assert_eq!(
        named("use crate::{\n    model::{self, Kernel},\n    verify,\n};"),
        ["model", "model::Kernel", "verify"]
    );
    assert_eq!(
        named("let r = super::super::collect::run(self.x, crate::cache::C);"),
        ["frontend::collect::run", "cache::C"]
    );
    assert_eq!(named("pub(crate) fn f(&self) {}"), Vec::<String>::new());
}
