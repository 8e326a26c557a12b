//! A producer outside the launch's own function: the array is a parameter
//! of the host function around the launch (`launch_pack(out, flags, offs,
//! n) { pack<<<..>>>(out, flags, offs, n); }`), untouched there before the
//! launch, and every call of that function in the project (its unit and
//! the project's other files) comes right after a Thrust sort or scan of
//! the array passed for it (`scan(offs, flags, n); launch_pack(out, flags,
//! offs, n);`), or passes a parameter of its own caller that is, and so on
//! up to [`MAX_DEPTH`] calls. Each call's arguments are bound to the
//! parameters by position: the fact is kept only when every call gives the
//! same producer over the same parameters.
//!
//! Sound only if those calls are every way the function runs: its name is
//! otherwise used nowhere in the project's host code (no address taken, no
//! macro), it is defined once, not a method, not `main`; a project whose
//! files cannot all be read gives nothing.

use super::{
    buffer_name, definitions, extent_unwritten_between, harmless_call, leaves_alone,
    parameter_names, producer_of, untouched_between, Kind, Project,
};
use crate::syntax::node_text;
use tree_sitter::Node;

/// Most calls followed between a producer and the launch (the launch's
/// function's callers, theirs, ...).
const MAX_DEPTH: usize = 3;

/// What every call of a host function holds in one of its array
/// parameters: produced by a Thrust sort or scan over as many elements as
/// parameter `extent` holds, a scan of parameter `source`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct AtEntry {
    pub kind: Kind,
    pub extent: usize,
    pub source: Option<usize>,
    pub source_type: Option<String>,
    pub output_type: Option<String>,
}

/// The host function around `call` when nothing in it that runs before
/// `call` may write `buffer` (every earlier statement of the blocks around
/// it, and the conditions of the `if`s around it, leave it alone as
/// [`leaves_alone`] says), and no loop or other construct lies between
/// (a loop runs its body again after the call).
pub(super) fn untouched_from_entry<'t>(
    text: &str,
    call: Node<'t>,
    buffer: &str,
) -> Option<Node<'t>> {
    if call.parent()?.kind() != "expression_statement" {
        return None;
    }
    let mut stack = vec![call];
    while let Some(n) = stack.pop() {
        if n.kind() == "call_expression" && n.id() != call.id() && !harmless_call(text, n, buffer) {
            return None;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    let mut inner = call;
    let mut node = call.parent();
    while let Some(n) = node {
        match n.kind() {
            "function_definition" => return Some(n),
            "compound_statement" => {
                let mut c = n.walk();
                let earlier: Vec<Node> = n
                    .named_children(&mut c)
                    .filter(|s| s.end_byte() <= inner.start_byte())
                    .collect();
                if !earlier.iter().all(|s| leaves_alone(text, *s, buffer)) {
                    return None;
                }
            }
            "if_statement" => {
                let condition = n.child_by_field_name("condition")?;
                if condition.id() == inner.id() || !leaves_alone(text, condition, buffer) {
                    return None;
                }
            }
            "expression_statement" | "else_clause" => {}
            _ => return None,
        }
        inner = n;
        node = n.parent();
    }
    None
}

/// What every call of `func` (defined in the unit `text`, the launch's or
/// another) holds in its parameter `index`, when they all agree.
pub(super) fn at_every_call(
    project: &Project,
    text: &str,
    func: Node,
    index: usize,
    depth: usize,
) -> Option<AtEntry> {
    if depth >= MAX_DEPTH || !plain_function(text, func) {
        return None;
    }
    let name = crate::syntax::function_name(text, func)?;
    if name == "main" {
        return None;
    }
    let mut found: Option<AtEntry> = None;
    let mut defined = 0;
    let mut agree = |text: &str, root: Node| -> Option<()> {
        let (definitions, calls) = calls_of(text, root, &name)?;
        defined += definitions;
        for c in calls {
            let e = before_call(project, text, c, index, depth)?;
            match &found {
                Some(f) if *f != e => return None,
                _ => found = Some(e),
            }
        }
        Some(())
    };
    agree(project.text, project.root)?;
    for unit in project.others.naming(&name)? {
        agree(&unit.text, unit.tree.root_node())?;
    }
    (defined == 1).then_some(())?;
    found
}

/// A free function (not a method, called through objects the search does
/// not see; not a template, whose calls may name its arguments).
fn plain_function(text: &str, func: Node) -> bool {
    let Some(declarator) = func.child_by_field_name("declarator") else {
        return false;
    };
    let written = node_text(text, declarator);
    let head = written.split('(').next().unwrap_or_default();
    if head.contains("::") || head.contains('<') {
        return false;
    }
    let mut p = func.parent();
    while let Some(n) = p {
        if matches!(
            n.kind(),
            "field_declaration_list" | "template_declaration" | "lambda_expression"
        ) {
            return false;
        }
        p = n.parent();
    }
    true
}

/// The definitions of `name` under `root` and its calls, when every other
/// use of the name is a declaration; `None` when it is used any other way
/// (its address taken, passed, named in a macro).
fn calls_of<'t>(text: &str, root: Node<'t>, name: &str) -> Option<(usize, Vec<Node<'t>>)> {
    let defined = definitions(text, root, name).len();
    let mut calls = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
        match n.kind() {
            "preproc_arg"
                if crate::analysis::kernel_uses::macro_names(node_text(text, n), name) =>
            {
                return None
            }
            "identifier" if node_text(text, n) == name => {
                let parent = n.parent()?;
                let is_field = |f: &str| {
                    parent
                        .child_by_field_name(f)
                        .is_some_and(|x| x.id() == n.id())
                };
                match parent.kind() {
                    "function_declarator" if is_field("declarator") => {}
                    "call_expression" if is_field("function") => calls.push(parent),
                    _ => return None,
                }
            }
            _ => {}
        }
    }
    Some((defined, calls))
}

/// What `call` (of a function whose parameter `index` is the array) finds
/// in the array it passes there, by the called function's parameters.
fn before_call(
    project: &Project,
    text: &str,
    call: Node,
    index: usize,
    depth: usize,
) -> Option<AtEntry> {
    let args = crate::syntax::call_arguments(call);
    let buffer = buffer_name(text, *args.get(index)?)?;
    let passing = |name: &str| {
        args.iter()
            .position(|a| buffer_name(text, *a).as_deref() == Some(name))
    };
    if let Some(p) = producer_of(project, text, call, &buffer) {
        // The extent as the call passes it, its variables unchanged since.
        let extent_text = node_text(text, p.extent).trim();
        let extent = args
            .iter()
            .position(|a| node_text(text, *a).trim() == extent_text)?;
        if !extent_unwritten_between(text, p.statement, call, p.extent) {
            return None;
        }
        let source = match (p.kind, p.source.as_deref()) {
            (Kind::Sort, _) => None,
            (Kind::Scan { .. }, Some(s)) => {
                if !untouched_between(text, p.statement, call, s) {
                    return None;
                }
                Some(passing(s)?)
            }
            (Kind::Scan { .. }, None) => return None,
        };
        return Some(AtEntry {
            kind: p.kind,
            extent,
            source,
            source_type: p.source_type,
            output_type: p.output_type,
        });
    }
    // The array came in as a parameter of the caller: what its callers
    // pass, bound through this call.
    let caller = untouched_from_entry(text, call, &buffer)?;
    let names = parameter_names(text, caller)?;
    let position = names.iter().position(|n| *n == buffer)?;
    let inner = at_every_call(project, text, caller, position, depth + 1)?;
    let extent_name = names.get(inner.extent)?;
    if !unwritten_parameter(text, caller, call, extent_name) {
        return None;
    }
    let extent = args
        .iter()
        .position(|a| a.kind() == "identifier" && node_text(text, *a) == extent_name)?;
    let source = match inner.source {
        Some(s) => {
            let name = names.get(s)?;
            untouched_from_entry(text, call, name)?;
            Some(passing(name)?)
        }
        None => None,
    };
    Some(AtEntry {
        extent,
        source,
        ..inner
    })
}

/// Whether the by-value parameter `name` of `func` still holds at `call`
/// what the caller passed: nothing in the function writes it before the
/// call or declares another variable of its name.
pub(super) fn unwritten_parameter(text: &str, func: Node, call: Node, name: &str) -> bool {
    let by_value = crate::syntax::function_params(func).into_iter().any(|p| {
        p.child_by_field_name("declarator")
            .is_some_and(|d| d.kind() == "identifier" && node_text(text, d) == name)
    });
    let Some(body) = func.child_by_field_name("body") else {
        return false;
    };
    by_value && !writes_before(text, body, call.start_byte(), name)
}

fn writes_before(text: &str, scope: Node, before: usize, name: &str) -> bool {
    let mut stack = vec![scope];
    while let Some(n) = stack.pop() {
        if n.start_byte() >= before {
            continue;
        }
        if writes_here(text, n, name) {
            return true;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    false
}

/// Whether `node` or anything in it writes the variable `name`.
pub(super) fn writes(text: &str, node: Node, name: &str) -> bool {
    writes_before(text, node, usize::MAX, name)
}

/// Whether `n` itself writes `name`: an assignment or step of it (or of a
/// part of it), its address taken, a declaration of that name, or the
/// name passed alone to a call other than the CUDA runtime's (a
/// reference parameter may write it).
fn writes_here(text: &str, n: Node, name: &str) -> bool {
    let names = |x: Option<Node>| {
        x.is_some_and(|x| !crate::syntax::identifiers_named(text, x, name).is_empty())
    };
    match n.kind() {
        "assignment_expression" => names(n.child_by_field_name("left")),
        "update_expression" => names(n.child_by_field_name("argument")),
        "pointer_expression" if node_text(text, n).starts_with('&') => {
            names(n.child_by_field_name("argument"))
        }
        "declaration" => {
            let mut c = n.walk();
            let declares = n
                .children_by_field_name("declarator", &mut c)
                .any(|d| crate::syntax::declarator_name(text, d).as_deref() == Some(name));
            declares
        }
        "call_expression" => {
            let runtime = n
                .child_by_field_name("function")
                .is_some_and(|f| node_text(text, f).starts_with("cuda"));
            !runtime
                && crate::syntax::call_arguments(n)
                    .iter()
                    .enumerate()
                    .any(|(i, a)| {
                        a.kind() == "identifier"
                            && node_text(text, *a) == name
                            && !by_value_argument(text, n, i)
                    })
        }
        _ => false,
    }
}

/// Whether the function `call` calls (defined once in the unit) takes its
/// argument `index` by value, so the call cannot write the variable passed.
fn by_value_argument(text: &str, call: Node, index: usize) -> bool {
    let Some(function) = call.child_by_field_name("function") else {
        return false;
    };
    if function.kind() != "identifier" {
        return false;
    }
    let mut root = call;
    while let Some(p) = root.parent() {
        root = p;
    }
    let name = node_text(text, function);
    let defined = definitions(text, root, name);
    // Printing and the standard arithmetic take their arguments by value.
    if defined.is_empty() && matches!(name, "printf" | "fprintf" | "puts" | "min" | "max") {
        return true;
    }
    let [def] = defined[..] else {
        return false;
    };
    crate::syntax::function_params(def)
        .get(index)
        .and_then(|p| p.child_by_field_name("declarator"))
        .is_some_and(|d| d.kind() == "identifier")
}
