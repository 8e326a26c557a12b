//! Launches through a CUDA graph's kernel node: a kernel stored into a
//! local `cudaKernelNodeParams` (`params.func = (void *)k;`) runs when the
//! node is added to a graph or its parameters set, with the `gridDim` and
//! `blockDim` the parameters hold then. Read only where every use of the
//! parameters in the function is understood; otherwise the store is a use
//! of the kernel's name not understood (`kernel_uses`).

use super::kernel_uses::declares_variable;
use crate::syntax::node_text;
use tree_sitter::Node;

/// The runtime's calls that launch (put into a graph, or update in one) the
/// kernel of the `cudaKernelNodeParams` they are passed by address: its
/// `func` with its `gridDim` and `blockDim` as they are at the call.
const KERNEL_NODE_LAUNCHES: &[&str] = &[
    "cudaGraphAddKernelNode",
    "cudaGraphKernelNodeSetParams",
    "cudaGraphExecKernelNodeSetParams",
];

/// One launch of a kernel through a graph's kernel node: the call that
/// adds (or sets) the node, and the grid and block its parameters hold.
pub(crate) struct NodeLaunch<'t> {
    pub call: Node<'t>,
    pub grid: Node<'t>,
    pub block: Node<'t>,
}

/// The launches of a kernel stored into a local `cudaKernelNodeParams`
/// (`params.func = (void *)k;` as a statement), when every one is
/// understood: the statements after the store in its block set
/// `params.gridDim` and `params.blockDim` and pass `&params` to
/// [`KERNEL_NODE_LAUNCHES`], each such call a launch with the sizes set
/// before it; the kernel stays stored until the next store to
/// `params.func`, a `memset(&params, ..)`, or the end of the block that
/// declares `params`. `None` (the use is not understood) when the variable
/// is used any other way anywhere in the function (copied, its address
/// passed elsewhere, a size field written inside another statement), when
/// the store is in a loop the variable outlives, or when a launch's sizes
/// were not both set after the store.
pub(crate) fn kernel_node_launches<'t>(text: &str, ident: Node<'t>) -> Option<Vec<NodeLaunch<'t>>> {
    let u = super::kernel_uses::whole_use(text, ident);
    let store = u.parent().filter(|p| p.kind() == "assignment_expression")?;
    let (var, field) = field_store(text, store)?;
    if field != "func" || store.child_by_field_name("right")?.id() != u.id() {
        return None;
    }
    let statement = store
        .parent()
        .filter(|s| s.kind() == "expression_statement")?;
    let block = statement
        .parent()
        .filter(|b| b.kind() == "compound_statement")?;
    let mut func = block.parent();
    while let Some(n) = func {
        if n.kind() == "function_definition" {
            break;
        }
        func = n.parent();
    }
    let func = func?;
    let declaration = local_declaration(text, func, &var)?;
    // A store in a loop reaches the loop's next iteration, before it.
    let mut p = statement.parent();
    while let Some(n) = p {
        if n.id() == func.id() {
            break;
        }
        let is_loop = matches!(
            n.kind(),
            "for_statement" | "for_range_loop" | "while_statement" | "do_statement"
        );
        if is_loop
            && !(n.start_byte() <= declaration.start_byte()
                && declaration.end_byte() <= n.end_byte())
        {
            return None;
        }
        p = n.parent();
    }
    // Every use of the variable in the function is understood.
    let mut launches_at = Vec::new();
    for n in crate::syntax::identifiers_named(text, func, &var) {
        match node_use(text, n)? {
            NodeUse::Declared | NodeUse::Sized | NodeUse::Reset | NodeUse::Stored => {}
            NodeUse::Launched(call) => launches_at.push(call),
        }
    }
    // The statements after the store, in order.
    let mut grid = None;
    let mut block_size = None;
    let mut out = Vec::new();
    let mut closed = false;
    for s in crate::syntax::items(block) {
        if s.start_byte() <= statement.start_byte() {
            continue;
        }
        if !mentions(text, s, &var) {
            continue;
        }
        if let Some((set, value)) = top_level_store(text, s, &var) {
            match set.as_str() {
                "func" => {
                    closed = true;
                    break;
                }
                "gridDim" => grid = Some(value),
                "blockDim" => block_size = Some(value),
                _ => {}
            }
            continue;
        }
        if resets(text, s, &var) {
            closed = true;
            break;
        }
        // Any other statement naming the variable: only launches through
        // it (a size stored inside it, under a condition, is not read).
        let mut inner = vec![s];
        while let Some(n) = inner.pop() {
            let mut c = n.walk();
            inner.extend(n.named_children(&mut c));
            if n.kind() == "assignment_expression"
                && field_store(text, n).is_some_and(|(v, _)| v == var)
            {
                return None;
            }
            if n.kind() == "call_expression" && resets_call(text, n, &var) {
                return None;
            }
        }
        for &call in &launches_at {
            if s.start_byte() <= call.start_byte() && call.end_byte() <= s.end_byte() {
                let (grid, block_size) = (grid?, block_size?);
                // The sizes are read as their expressions' values at the
                // call (launch.rs): a variable of one assigned after the
                // store would be read with its new value, not the one
                // stored.
                for size in [grid, block_size] {
                    if assigned_between(text, block, size, call) {
                        return None;
                    }
                }
                out.push(NodeLaunch {
                    call,
                    grid,
                    block: block_size,
                });
            }
        }
    }
    let declared_here = declaration.parent().is_some_and(|d| d.id() == block.id());
    (closed || declared_here).then_some(out)
}

/// Whether a variable `size` (a size stored into the parameters) names is
/// assigned in `block` after `size` and before `call`.
fn assigned_between(text: &str, block: Node, size: Node, call: Node) -> bool {
    let mut names = Vec::new();
    let mut stack = vec![size];
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" {
            names.push(node_text(text, n));
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    let mut stack = vec![block];
    while let Some(n) = stack.pop() {
        if n.end_byte() <= size.end_byte() || n.start_byte() >= call.start_byte() {
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
        if n.start_byte() < size.end_byte() || n.kind() != "assignment_expression" {
            continue;
        }
        let mut target = n.child_by_field_name("left");
        while let Some(t) = target {
            match t.kind() {
                "identifier" => {
                    if names.contains(&node_text(text, t)) {
                        return true;
                    }
                    break;
                }
                "field_expression" | "subscript_expression" => {
                    target = t.child_by_field_name("argument")
                }
                "parenthesized_expression" => target = t.named_child(0),
                _ => break,
            }
        }
    }
    false
}

/// How an identifier naming a kernel-node-parameters variable is used.
enum NodeUse<'t> {
    /// Its declaration.
    Declared,
    /// `sizeof(p)`.
    Sized,
    /// `memset(&p, ..)`.
    Reset,
    /// `p.field = E;`
    Stored,
    /// `&p` passed to one of [`KERNEL_NODE_LAUNCHES`]: that call.
    Launched(Node<'t>),
}

fn node_use<'t>(text: &str, ident: Node<'t>) -> Option<NodeUse<'t>> {
    let parent = ident.parent()?;
    let is_declarator = || {
        let mut c = parent.walk();
        let found = parent
            .children_by_field_name("declarator", &mut c)
            .any(|d| d.id() == ident.id());
        found
    };
    let in_sizeof = |n: Node| n.kind() == "sizeof_expression";
    match parent.kind() {
        "declaration" | "init_declarator" if is_declarator() => Some(NodeUse::Declared),
        "sizeof_expression" => Some(NodeUse::Sized),
        "parenthesized_expression" if parent.parent().is_some_and(in_sizeof) => {
            Some(NodeUse::Sized)
        }
        "field_expression" => {
            let store = parent
                .parent()
                .filter(|a| a.kind() == "assignment_expression")?;
            let is_left = store
                .child_by_field_name("left")
                .is_some_and(|l| l.id() == parent.id());
            let plain = store
                .child_by_field_name("operator")
                .is_some_and(|o| node_text(text, o) == "=");
            let statement = store
                .parent()
                .is_some_and(|s| s.kind() == "expression_statement");
            (is_left && plain && statement).then_some(NodeUse::Stored)
        }
        "pointer_expression"
            if parent
                .child_by_field_name("operator")
                .is_some_and(|o| node_text(text, o) == "&") =>
        {
            // `&p`, or one branch of `c ? &p : &q`, as an argument.
            let mut arg = parent;
            while let Some(up) = arg.parent() {
                let branch = up.kind() == "conditional_expression"
                    && up
                        .child_by_field_name("condition")
                        .is_some_and(|c| c.id() != arg.id());
                if !(branch || up.kind() == "parenthesized_expression") {
                    break;
                }
                arg = up;
            }
            let call = arg
                .parent()
                .filter(|a| a.kind() == "argument_list")?
                .parent()?;
            let callee = callee_name(text, call)?;
            if callee == "memset" {
                Some(NodeUse::Reset)
            } else if KERNEL_NODE_LAUNCHES.contains(&callee) {
                Some(NodeUse::Launched(call))
            } else {
                None
            }
        }
        _ => None,
    }
}

fn callee_name<'a>(text: &'a str, call: Node) -> Option<&'a str> {
    let f = node_text(text, call.child_by_field_name("function")?);
    Some(f.rsplit("::").next().unwrap_or(f))
}

/// `p.field = E` with `p` a variable: (p, field).
fn field_store(text: &str, assignment: Node) -> Option<(String, String)> {
    let left = assignment.child_by_field_name("left")?;
    if left.kind() != "field_expression" {
        return None;
    }
    let var = left
        .child_by_field_name("argument")
        .filter(|a| a.kind() == "identifier")?;
    let field = left.child_by_field_name("field")?;
    Some((
        node_text(text, var).to_string(),
        node_text(text, field).to_string(),
    ))
}

/// A statement `p.field = E;`: (field, E).
fn top_level_store<'t>(text: &str, s: Node<'t>, var: &str) -> Option<(String, Node<'t>)> {
    let a = s
        .named_child(0)
        .filter(|a| s.kind() == "expression_statement" && a.kind() == "assignment_expression")?;
    let (v, field) = field_store(text, a)?;
    (v == var).then_some((field, a.child_by_field_name("right")?))
}

/// A statement `memset(&p, ..);`.
fn resets(text: &str, s: Node, var: &str) -> bool {
    s.kind() == "expression_statement"
        && s.named_child(0)
            .is_some_and(|c| c.kind() == "call_expression" && resets_call(text, c, var))
}

fn resets_call(text: &str, call: Node, var: &str) -> bool {
    callee_name(text, call) == Some("memset")
        && crate::syntax::call_arguments(call)
            .first()
            .is_some_and(|a| node_text(text, *a).replace(' ', "") == format!("&{var}"))
}

fn mentions(text: &str, n: Node, var: &str) -> bool {
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if x.kind() == "identifier" && node_text(text, x) == var {
            return true;
        }
        let mut c = x.walk();
        stack.extend(x.named_children(&mut c));
    }
    false
}

/// The declaration of a local variable `var` in `func` (not a parameter,
/// not a global).
fn local_declaration<'t>(text: &str, func: Node<'t>, var: &str) -> Option<Node<'t>> {
    let mut stack = vec![func.child_by_field_name("body")?];
    while let Some(n) = stack.pop() {
        if n.kind() == "declaration" && declares_variable(text, n, var) {
            return Some(n);
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    None
}
