//! Each query of `grammar-queries/` against its snippets in
//! `grammar-queries/tests/<query>.cu`: every capture the query makes is
//! marked on its line, `//~ @capture "first line of the captured text"`
//! (`//~^` for the line above), and nothing else is captured.

use super::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../grammar-queries")
}

fn files_with(dir: &Path, ext: &str) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(ext))
        .collect()
}

/// (line, capture, first line of the captured text), 0-based lines.
type Capture = (usize, String, String);

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").trim().to_string()
}

/// What the query of `file` captures in `text`.
fn captures_of(file: &str, text: &str) -> BTreeSet<Capture> {
    let compiled = Compiled::new(file);
    let names = compiled.query.capture_names();
    let tree = crate::syntax::parse(text, None);
    let mut out = BTreeSet::new();
    compiled.under(tree.root_node(), text, |m| {
        for c in m.captures {
            out.insert((
                c.node.start_position().row,
                format!("@{}", names[c.index as usize]),
                first_line(node_text(text, c.node)),
            ));
        }
    });
    out
}

/// The captures marked in a snippet file.
fn marked(text: &str) -> BTreeSet<Capture> {
    let mut out = BTreeSet::new();
    for (line, l) in text.lines().enumerate() {
        let Some((_, marks)) = l.split_once("//~") else {
            continue;
        };
        // `//~^` marks the line above (a preprocessor line's node would
        // take in a comment on its own line).
        let (line, marks) = match marks.strip_prefix('^') {
            Some(m) => (line - 1, m),
            None => (line, marks),
        };
        let mut rest = marks.trim();
        // Several marks on a line: `@a "x" @b "y"`.
        while let Some(after) = rest.strip_prefix('@') {
            let (name, tail) = after.split_once(' ').expect("`@capture \"text\"`");
            let tail = tail.trim_start().strip_prefix('"').expect("a quoted text");
            let end = tail
                .find("\" @")
                .unwrap_or_else(|| tail.rfind('"').expect("a closing quote"));
            out.insert((line, format!("@{name}"), tail[..end].to_string()));
            rest = tail[end + 1..].trim_start();
        }
    }
    out
}

#[test]
fn every_query_file_is_loaded_and_compiled_by_this_module() {
    let on_disk = files_with(&folder(), ".scm");
    let loaded: BTreeSet<String> = FILES.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(
        on_disk, loaded,
        "grammar-queries/*.scm and queries::FILES differ: a query no code loads is dead"
    );
    let module = include_str!("../queries.rs");
    for (file, src) in FILES {
        assert_eq!(
            *src,
            std::fs::read_to_string(folder().join(file)).unwrap(),
            "{file}"
        );
        assert!(
            module.contains(&format!("Compiled::new(\"{file}\")")),
            "grammar-queries/{file} is loaded but nothing compiles it for use"
        );
        Query::new(&crate::syntax::language(), src)
            .unwrap_or_else(|e| panic!("grammar-queries/{file}: {e}"));
    }
}

#[test]
fn every_query_captures_what_its_snippets_mark() {
    let snippets = folder().join("tests");
    let queries: BTreeSet<String> = FILES
        .iter()
        .map(|(n, _)| n.trim_end_matches(".scm").to_string())
        .collect();
    let cases: BTreeSet<String> = files_with(&snippets, ".cu")
        .into_iter()
        .map(|n| n.trim_end_matches(".cu").to_string())
        .collect();
    assert_eq!(
        queries, cases,
        "each query has its snippets in grammar-queries/tests/<query>.cu"
    );
    let mut problems = Vec::new();
    for name in &queries {
        let path = snippets.join(format!("{name}.cu"));
        let text = std::fs::read_to_string(&path).unwrap();
        let expected = marked(&text);
        assert!(!expected.is_empty(), "{}: no `//~` marks", path.display());
        let got = captures_of(&format!("{name}.scm"), &text);
        for (line, capture, what) in got.difference(&expected) {
            problems.push(format!(
                "{}:{}: unexpected {capture} \"{what}\"",
                path.display(),
                line + 1
            ));
        }
        for (line, capture, what) in expected.difference(&got) {
            problems.push(format!(
                "{}:{}: missing {capture} \"{what}\"",
                path.display(),
                line + 1
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_snippet_marks_are_read() {
    let text = "k<<<1, 2>>>(a); //~ @launch.callee \"k\" @launch.config \"<<<1, 2>>>\"\n";
    let expected: BTreeSet<Capture> = [
        (0, "@launch.callee".to_string(), "k".to_string()),
        (0, "@launch.config".to_string(), "<<<1, 2>>>".to_string()),
    ]
    .into_iter()
    .collect();
    assert_eq!(marked(text), expected);
}

fn parsed(text: &str) -> tree_sitter::Tree {
    crate::syntax::parse(text, None)
}

#[test]
fn kernels_by_node_and_by_tree() {
    let text = "__global__ void a() {}\n__device__ void b() {}\ntemplate <int N> __global__ void c() {}\n__global__ void proto();\n";
    let tree = parsed(text);
    let names: Vec<String> = kernels(tree.root_node(), text)
        .into_iter()
        .filter_map(|k| crate::syntax::function_name(text, k))
        .collect();
    assert_eq!(names, ["a", "c"]);
    let root = tree.root_node();
    let first = root.named_child(0).unwrap();
    let second = root.named_child(1).unwrap();
    assert!(is_kernel(first, text));
    assert!(!is_kernel(second, text));
    // Only the node asked about: a translation unit is no kernel.
    assert!(!is_kernel(root, text));
}

#[test]
fn launches_by_node() {
    let text = "void h() { k<16><<<g, b>>>(x); f(x); ::cudaLaunchKernel((void *)k, g, b, a, 0, 0); my_cudaLaunchKernel(k); }\n";
    let tree = parsed(text);
    let mut calls = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.kind() == "call_expression" {
            calls.push(n);
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    calls.sort_by_key(|n| n.start_byte());
    let described: Vec<(Option<(String, String)>, bool)> = calls
        .iter()
        .map(|&c| {
            (
                launch(c, text).map(|l| {
                    (
                        node_text(text, l.callee).to_string(),
                        node_text(text, l.config).to_string(),
                    )
                }),
                is_runtime_launch(c, text),
            )
        })
        .collect();
    assert_eq!(
        described,
        [
            (Some(("k<16>".into(), "<<<g, b>>>".into())), false),
            (None, false),
            (None, true),
            (None, false),
        ]
    );
}

#[test]
fn include_lines() {
    let line = |l: &str| include_line(l).map(|i| (i.name, i.angled));
    assert_eq!(line("#include \"a.h\"\n"), Some(("a.h".into(), false)));
    assert_eq!(
        line("  #  include <thrust/sort.h>"),
        Some(("thrust/sort.h".into(), true))
    );
    assert_eq!(line("#include HEADER\n"), None);
    assert_eq!(line("#define include 1\n"), None);
    assert_eq!(line("int x;\n"), None);
}

#[test]
fn barrier_names_come_from_the_query() {
    assert!(is_barrier(BarrierName::Block, "__syncthreads"));
    assert!(is_barrier(BarrierName::BlockCounting, "__syncthreads_or"));
    assert!(!is_barrier(BarrierName::Block, "__syncthreads_or"));
    assert!(is_barrier(BarrierName::Warp, "__syncwarp"));
    assert!(is_barrier(BarrierName::GroupMethod, "barrier_wait"));
    assert!(is_barrier(BarrierName::GroupFunction, "synchronize"));
    assert!(!is_barrier(BarrierName::GroupFunction, "barrier_wait"));
    // Every kind has names, and every list of names belongs to a kind.
    let lists = any_of_lists(source("barriers.scm"));
    for (kind, capture) in BarrierName::ALL {
        assert!(
            lists.iter().any(|(c, n)| c == capture && !n.is_empty()),
            "{kind:?}: no names under @{capture}"
        );
    }
    for (capture, _) in &lists {
        assert!(
            BarrierName::ALL.iter().any(|(_, c)| c == capture),
            "@{capture} is no barrier kind"
        );
    }
}

#[test]
fn name_lists_are_read_from_predicates() {
    let src = "; (#any-of? @no \"comment\")\n((call_expression function: (identifier) @a) (#any-of? @a \"x\" \"y\"))\n((identifier) @b (#eq? @b \"z\"))\n((identifier) @c (#match? @c \"^w\"))\n";
    assert_eq!(
        any_of_lists(src),
        [
            ("a".to_string(), vec!["x".to_string(), "y".to_string()]),
            ("b".to_string(), vec!["z".to_string()]),
        ]
    );
}

#[test]
fn specification_names_come_from_the_query() {
    for name in [
        "__requires",
        "__ensures",
        "assert",
        "__function_wide_invariant",
    ] {
        assert!(is_specification(name), "{name}");
    }
    for name in ["__implies", "__enabled", "__syncthreads", "printf"] {
        assert!(!is_specification(name), "{name}");
    }
}

#[test]
fn launch_bounds_of_a_kernel() {
    let text = "__global__ void __launch_bounds__(256, 2) k() {}\n__global__ void j() {}\n";
    let tree = parsed(text);
    let root = tree.root_node();
    let bounds: Vec<&str> = launch_bounds(root.named_child(0).unwrap(), text)
        .into_iter()
        .map(|n| node_text(text, n))
        .collect();
    assert_eq!(bounds, ["__launch_bounds__(256, 2)"]);
    assert!(launch_bounds(root.named_child(1).unwrap(), text).is_empty());
}
