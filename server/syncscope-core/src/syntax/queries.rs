//! The tree-sitter queries of `grammar-queries/`: what the front end and the
//! project model call a kernel, a launch site, an `#include`, a barrier and
//! an annotation, written as patterns of the CUDA grammar. Supporting a new
//! syntactic form of one of them is a change of its `.scm` file first.
//!
//! Each query is compiled once (on first use). Most uses ask about one node the caller's own walk
//! is at (`is_kernel`, `launch`): the match is then limited to patterns
//! rooted at that node (`max_start_depth(0)`), so it costs a look at the node
//! and its children, not a walk of the tree.

use super::node_text;
use std::collections::HashMap;
use std::sync::LazyLock;
use tree_sitter::{Node, Query, QueryCursor, QueryMatch, StreamingIterator};

/// Every query file of `grammar-queries/`, compiled into the binary.
pub(crate) const FILES: &[(&str, &str)] = &[
    (
        "kernels.scm",
        include_str!("../../../../grammar-queries/kernels.scm"),
    ),
    (
        "launches.scm",
        include_str!("../../../../grammar-queries/launches.scm"),
    ),
    (
        "includes.scm",
        include_str!("../../../../grammar-queries/includes.scm"),
    ),
    (
        "barriers.scm",
        include_str!("../../../../grammar-queries/barriers.scm"),
    ),
    (
        "annotations.scm",
        include_str!("../../../../grammar-queries/annotations.scm"),
    ),
];

fn source(file: &str) -> &'static str {
    FILES
        .iter()
        .find(|(name, _)| *name == file)
        .map(|(_, src)| *src)
        .unwrap_or_else(|| panic!("grammar-queries/{file} is not in queries::FILES"))
}

/// A query of `FILES` with its capture names resolved.
struct Compiled {
    query: Query,
}

impl Compiled {
    /// Compiles `file`. A query that does not compile against the grammar
    /// is a bug of the build (each is compiled by a test), not of the input.
    fn new(file: &str) -> Self {
        let query = Query::new(&super::language(), source(file))
            .unwrap_or_else(|e| panic!("grammar-queries/{file}: {e}"));
        Compiled { query }
    }

    fn capture(&self, name: &str) -> u32 {
        self.query
            .capture_index_for_name(name)
            .unwrap_or_else(|| panic!("a query has no capture @{name}"))
    }

    /// Calls `each` with every match of a pattern rooted at `node` itself.
    fn at<'t>(&self, node: Node<'t>, text: &str, each: impl FnMut(&QueryMatch<'_, 't>)) {
        // One cursor per thread for these small matches: they run once per
        // call or definition the walks meet, and a cursor allocates.
        thread_local! {
            static AT_NODE: std::cell::RefCell<QueryCursor> = std::cell::RefCell::new({
                let mut cursor = QueryCursor::new();
                cursor.set_max_start_depth(Some(0));
                cursor
            });
        }
        AT_NODE.with(|cursor| match cursor.try_borrow_mut() {
            Ok(mut cursor) => self.run(&mut cursor, node, text, each),
            // Asked again from inside a match (no caller does): a fresh one.
            Err(_) => {
                let mut cursor = QueryCursor::new();
                cursor.set_max_start_depth(Some(0));
                self.run(&mut cursor, node, text, each)
            }
        });
    }

    /// Calls `each` with every match under `root`, in document order.
    fn under<'t>(&self, root: Node<'t>, text: &str, each: impl FnMut(&QueryMatch<'_, 't>)) {
        self.run(&mut QueryCursor::new(), root, text, each);
    }

    fn run<'t>(
        &self,
        cursor: &mut QueryCursor,
        node: Node<'t>,
        text: &str,
        mut each: impl FnMut(&QueryMatch<'_, 't>),
    ) {
        let mut matches = cursor.matches(&self.query, node, text.as_bytes());
        while let Some(m) = matches.next() {
            each(m);
        }
    }
}

fn captured<'t>(m: &QueryMatch<'_, 't>, index: u32) -> Option<Node<'t>> {
    m.captures.iter().find(|c| c.index == index).map(|c| c.node)
}

// ----- kernels.scm --------------------------------------------------------

static KERNELS: LazyLock<Compiled> = LazyLock::new(|| Compiled::new("kernels.scm"));

/// Whether a `function_definition` is a kernel.
pub(crate) fn is_kernel(def: Node, text: &str) -> bool {
    let kernel = KERNELS.capture("kernel");
    let mut found = false;
    KERNELS.at(def, text, |m| found |= captured(m, kernel).is_some());
    found
}

/// Every kernel definition under `root`, in document order, whether or not
/// the preprocessor takes its branch (the front end's collection decides
/// that; this is for callers that look a kernel up by name).
pub(crate) fn kernels<'t>(root: Node<'t>, text: &str) -> Vec<Node<'t>> {
    let kernel = KERNELS.capture("kernel");
    let mut out = Vec::new();
    KERNELS.under(root, text, |m| out.extend(captured(m, kernel)));
    out
}

// ----- launches.scm -------------------------------------------------------

struct Launches {
    compiled: Compiled,
    launch: u32,
    callee: u32,
    config: u32,
    runtime: u32,
}

static LAUNCHES: LazyLock<Launches> = LazyLock::new(|| {
    let compiled = Compiled::new("launches.scm");
    Launches {
        launch: compiled.capture("launch"),
        callee: compiled.capture("launch.callee"),
        config: compiled.capture("launch.config"),
        runtime: compiled.capture("runtime"),
        compiled,
    }
});

/// A `k<<<…>>>(…)` call: what it names and its `<<<…>>>`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LaunchSyntax<'t> {
    /// The callee as written (`k`, `k<16>`, `ns::k`, `p`, `table[i]`).
    pub callee: Node<'t>,
    /// The `<<<grid, block, …>>>` node.
    pub config: Node<'t>,
}

/// The launch a `call_expression` is, if it is a `<<<…>>>` launch.
pub(crate) fn launch<'t>(call: Node<'t>, text: &str) -> Option<LaunchSyntax<'t>> {
    let q = &*LAUNCHES;
    let mut out = None;
    q.compiled.at(call, text, |m| {
        if out.is_none() && captured(m, q.launch).is_some() {
            if let (Some(callee), Some(config)) = (captured(m, q.callee), captured(m, q.config)) {
                out = Some(LaunchSyntax { callee, config });
            }
        }
    });
    out
}

/// Whether a `call_expression` is a call of the runtime's launch functions
/// (`cudaLaunchKernel`, `cudaLaunchCooperativeKernel`), which launch the
/// kernel of their first argument.
pub(crate) fn is_runtime_launch(call: Node, text: &str) -> bool {
    let q = &*LAUNCHES;
    let mut found = false;
    q.compiled
        .at(call, text, |m| found |= captured(m, q.runtime).is_some());
    found
}

// ----- includes.scm -------------------------------------------------------

/// An `#include` as written: the header's name between its delimiters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Include {
    pub name: String,
    /// `<name>` (a system header) rather than `"name"`.
    pub angled: bool,
}

struct Includes {
    compiled: Compiled,
    local: u32,
    system: u32,
}

static INCLUDES: LazyLock<Includes> = LazyLock::new(|| {
    let compiled = Compiled::new("includes.scm");
    Includes {
        local: compiled.capture("include.local"),
        system: compiled.capture("include.system"),
        compiled,
    }
});

/// The `#include` one line of source is, if it is one.
///
/// The project model reads includes before anything is parsed: they decide
/// which text the translation unit is, and only that unit is parsed for the
/// analysis. So the line is parsed alone, here, and the query decides what
/// it includes; which lines to ask about is the caller's (cheap) choice.
pub(crate) fn include_line(line: &str) -> Option<Include> {
    let q = &*INCLUDES;
    let tree = super::parse(line, None);
    let mut out = None;
    q.compiled.under(tree.root_node(), line, |m| {
        if out.is_some() {
            return;
        }
        let (path, angled, close) = match (captured(m, q.local), captured(m, q.system)) {
            (Some(p), _) => (p, false, '"'),
            (None, Some(p)) => (p, true, '>'),
            (None, None) => return,
        };
        // The name runs to the first closing delimiter.
        let written = node_text(line, path);
        let inner = written.get(1..).unwrap_or("");
        if let Some(end) = inner.find(close) {
            out = Some(Include {
                name: inner[..end].to_string(),
                angled,
            });
        }
    });
    out
}

// ----- barriers.scm -------------------------------------------------------

/// The kinds of barrier calls `barriers.scm` names, by capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BarrierName {
    /// `__syncthreads()`: every thread of the block.
    Block,
    /// `__syncthreads_count(p)` and friends: a block barrier with a result.
    BlockCounting,
    /// `__syncwarp(mask)`.
    Warp,
    /// `g.sync()`: a method of a cooperative group.
    GroupMethod,
    /// `cg::sync(g)`: a function taking a cooperative group.
    GroupFunction,
}

impl BarrierName {
    pub(crate) const ALL: [(BarrierName, &'static str); 5] = [
        (BarrierName::Block, "barrier.block"),
        (BarrierName::BlockCounting, "barrier.block.counting"),
        (BarrierName::Warp, "barrier.warp"),
        (BarrierName::GroupMethod, "barrier.group.method"),
        (BarrierName::GroupFunction, "barrier.group.function"),
    ];
}

/// The names of each kind of barrier, read from the `#any-of?` (or `#eq?`)
/// lists of `barriers.scm`.
///
/// Lowering cannot match the query against the tree: it meets a barrier
/// through the name a call resolves to (a macro `#define block_sync
/// __syncthreads`, a function pointer with a known target), and a group's
/// barrier only on an object it knows to be a group. So the query is its
/// table of names, and the same file finds the written calls in a tree.
static BARRIER_NAMES: LazyLock<HashMap<String, Vec<BarrierName>>> = LazyLock::new(|| {
    // Compiled too: the names are those of a valid query with every kind's
    // capture.
    let compiled = Compiled::new("barriers.scm");
    for (_, capture) in BarrierName::ALL {
        compiled.capture(capture);
    }
    let mut out: HashMap<String, Vec<BarrierName>> = HashMap::new();
    for (capture, names) in any_of_lists(source("barriers.scm")) {
        let Some((kind, _)) = BarrierName::ALL.iter().find(|(_, c)| *c == capture) else {
            continue;
        };
        for name in names {
            out.entry(name).or_default().push(*kind);
        }
    }
    out
});

/// Whether `name` is a barrier of `kind` (as a call's resolved name).
pub(crate) fn is_barrier(kind: BarrierName, name: &str) -> bool {
    BARRIER_NAMES
        .get(name)
        .is_some_and(|kinds| kinds.contains(&kind))
}

/// The names a query's source lists for its captures: the strings of each
/// `(#any-of? @capture "a" "b" …)` and `(#eq? @capture "a")`, as
/// (capture, names). The query's strings are plain names (no escapes).
fn any_of_lists(src: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let code: String = src
        .lines()
        .map(|l| l.split(';').next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut rest = code.as_str();
    while let Some(at) = rest.find("(#") {
        rest = &rest[at + 2..];
        let end = rest.find(')').unwrap_or(rest.len());
        let mut words = rest[..end].split_whitespace();
        let predicate = words.next();
        let capture = words.next().and_then(|c| c.strip_prefix('@'));
        let names: Vec<String> = words
            .filter(|w| w.starts_with('"'))
            .map(|w| w.trim_matches('"').to_string())
            .collect();
        if let (Some("any-of?" | "eq?"), Some(capture)) = (predicate, capture) {
            out.push((capture.to_string(), names));
        }
        rest = &rest[end..];
    }
    out
}

// ----- annotations.scm ----------------------------------------------------

struct Annotations {
    compiled: Compiled,
    launch_bounds: u32,
}

static ANNOTATIONS: LazyLock<Annotations> = LazyLock::new(|| {
    let compiled = Compiled::new("annotations.scm");
    Annotations {
        launch_bounds: compiled.capture("annotation.launch_bounds"),
        compiled,
    }
});

/// The names of the specification language's calls, read from the
/// `#any-of?` list of `annotations.scm` (lowering meets them by the call's
/// resolved name, as it does barriers).
static SPECIFICATION_NAMES: LazyLock<Vec<String>> = LazyLock::new(|| {
    let capture = "annotation.specification";
    ANNOTATIONS.compiled.capture(capture);
    any_of_lists(source("annotations.scm"))
        .into_iter()
        .filter(|(c, _)| c == capture)
        .flat_map(|(_, names)| names)
        .collect()
});

/// Whether `name` is a call of the specification language (`__requires`,
/// `__ensures`, `assert`…).
pub(crate) fn is_specification(name: &str) -> bool {
    SPECIFICATION_NAMES.iter().any(|n| n == name)
}

/// The `__launch_bounds__(…)` annotations of a function definition, in
/// source order.
pub(crate) fn launch_bounds<'t>(def: Node<'t>, text: &str) -> Vec<Node<'t>> {
    let q = &*ANNOTATIONS;
    let mut out: Vec<Node<'t>> = Vec::new();
    q.compiled.at(def, text, |m| {
        for c in m.captures.iter().filter(|c| c.index == q.launch_bounds) {
            if !out.iter().any(|n| n.id() == c.node.id()) {
                out.push(c.node);
            }
        }
    });
    out.sort_by_key(|n| n.start_byte());
    out
}

#[cfg(test)]
mod tests;
