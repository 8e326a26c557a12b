//! Ways a kernel can run that a `<<<…>>>` launch site does not show: its
//! name used as a value (`cudaLaunchKernel((void*)k, …)`, `&k`, a table of
//! kernels `{k1, k2}`, a pointer `p = k` launched elsewhere, a macro body
//! naming it). Each such use may launch the kernel with any sizes and any
//! arguments, so the launch facts read from the `<<<…>>>` sites do not hold
//! for it: the kernel is checked under a launch of any size instead, and
//! the report names the uses that made it so.
//!
//! A kernel stored into a CUDA graph's kernel node parameters is read by
//! `graph_nodes.rs`.
//!
//! Only the uses known not to launch are left out: the kernel's own
//! declarations and definition, a local or parameter of the same name
//! (another entity), a call without `<<<…>>>` (an overload of the same
//! name: a `__global__` function cannot be called so), and the runtime's queries and settings of a kernel's
//! attributes (`cudaFuncSetAttribute`, `cudaOccupancy…`), which never run it.

use crate::syntax::node_text;
use tree_sitter::Node;

/// Runtime functions that take a kernel and never launch it.
const NON_LAUNCHING: &[&str] = &[
    "cudaFuncSetAttribute",
    "cudaFuncGetAttributes",
    "cudaFuncSetCacheConfig",
    "cudaFuncSetSharedMemConfig",
    "cudaFuncGetName",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
    "cudaOccupancyMaxPotentialBlockSize",
    "cudaOccupancyMaxPotentialBlockSizeWithFlags",
    "cudaOccupancyMaxPotentialBlockSizeVariableSMem",
    "cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags",
    "cudaOccupancyAvailableDynamicSMemPerBlock",
];

/// What a use of a kernel's name does.
pub(crate) enum Use<'t> {
    /// Nothing a launch site does not show: a `<<<…>>>` callee, a
    /// declaration, another entity, a query, a comparison.
    NotALaunch,
    /// `cudaLaunchKernel((void *)k, grid, block, args, ..)`: this call.
    Runtime(Node<'t>),
    /// A use that may launch the kernel some way not understood: what.
    Unknown(String),
}

/// What an identifier naming a kernel does there.
pub(crate) fn use_of<'t>(text: &str, ident: Node<'t>) -> Use<'t> {
    match other_use(text, ident) {
        None => Use::NotALaunch,
        Some(Ok(call)) => Use::Runtime(call),
        Some(Err(what)) => Use::Unknown(what),
    }
}

/// The expression a kernel's name is used as: `k<16>`, `ns::k`, `&k`,
/// `(void *)k`, `(k)` are each used whole.
pub(super) fn whole_use<'t>(text: &str, ident: Node<'t>) -> Node<'t> {
    let mut u = ident;
    while let Some(p) = u.parent() {
        let wraps = match p.kind() {
            "template_function" | "qualified_identifier" => p
                .child_by_field_name("name")
                .is_some_and(|n| n.id() == u.id()),
            "parenthesized_expression" | "cast_expression" => true,
            "pointer_expression" => p
                .child_by_field_name("operator")
                .is_some_and(|o| node_text(text, o) == "&"),
            _ => false,
        };
        if !wraps {
            break;
        }
        u = p;
    }
    u
}

fn other_use<'t>(text: &str, ident: Node<'t>) -> Option<Result<Node<'t>, String>> {
    let name = node_text(text, ident);
    let u = whole_use(text, ident);
    let parent = u.parent()?;
    let is_field = |field: &str| {
        parent
            .child_by_field_name(field)
            .is_some_and(|n| n.id() == u.id())
    };
    match parent.kind() {
        // The kernel's own prototype, definition or explicit instantiation.
        "function_declarator" if is_field("declarator") => return None,
        // A variable of the same name: another entity.
        "init_declarator"
        | "parameter_declaration"
        | "declaration"
        | "array_declarator"
        | "pointer_declarator"
        | "reference_declarator"
            if is_field("declarator") =>
        {
            return None
        }
        // A `<<<…>>>` launch (read as a site); or a call without one,
        // which cannot run a `__global__` function (nvcc rejects it): it
        // calls a host or device overload of the same name.
        "call_expression" if is_field("function") => return None,
        _ => {}
    }
    if shadowed(text, ident, name) {
        return None;
    }
    Some(Err(match parent.kind() {
        // `p == &k`: a comparison runs nothing.
        "binary_expression"
            if parent
                .child_by_field_name("operator")
                .is_some_and(|o| matches!(node_text(text, o), "==" | "!=")) =>
        {
            return None
        }
        "argument_list" => {
            let call = parent.parent().filter(|c| c.kind() == "call_expression");
            let callee = call
                .and_then(|c| c.child_by_field_name("function"))
                .map(|f| node_text(text, f).to_string())
                .unwrap_or_default();
            let bare = callee.rsplit("::").next().unwrap_or(&callee);
            if NON_LAUNCHING.contains(&bare) {
                return None;
            }
            let first = crate::syntax::items(parent)
                .first()
                .is_some_and(|a| a.id() == u.id());
            // launches.scm names the runtime functions that launch the
            // kernel of their first argument with the grid and block of
            // their second and third (its arguments, in an array of
            // pointers, are not read).
            if let Some(call) =
                call.filter(|&c| first && crate::syntax::queries::is_runtime_launch(c, text))
            {
                return Some(Ok(call));
            }
            format!("`{name}` passed to `{callee}`")
        }
        "initializer_list" | "initializer_pair" => format!("`{name}` stored in a table"),
        "assignment_expression" => format!(
            "`{name}` assigned to `{}`",
            parent
                .child_by_field_name("left")
                .map(|l| node_text(text, l))
                .unwrap_or("?")
        ),
        "init_declarator" => format!(
            "`{name}` stored in `{}`",
            parent
                .child_by_field_name("declarator")
                .map(|l| node_text(text, l))
                .unwrap_or("?")
        ),
        _ => format!("`{name}` used as a value"),
    }))
}

/// Whether a parameter or local of the function around `ident` has the
/// same name (then `ident` names it, not the kernel).
fn shadowed(text: &str, ident: Node, name: &str) -> bool {
    let mut f = ident.parent();
    while let Some(n) = f {
        if n.kind() == "function_definition" {
            break;
        }
        f = n.parent();
    }
    let Some(func) = f else {
        return false;
    };
    let mut stack = vec![func];
    while let Some(n) = stack.pop() {
        let declares = match n.kind() {
            "parameter_declaration" => n
                .child_by_field_name("declarator")
                .and_then(|d| crate::syntax::declarator_name(text, d))
                .is_some_and(|d| d == name),
            "declaration" => declares_variable(text, n, name),
            _ => false,
        };
        if declares {
            return true;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    false
}

/// A declaration of a variable (not a function prototype) named `name`.
pub(super) fn declares_variable(text: &str, decl: Node, name: &str) -> bool {
    let mut c = decl.walk();
    let found = decl.children_by_field_name("declarator", &mut c).any(|d| {
        d.kind() != "function_declarator"
            && crate::syntax::declarator_name(text, d).as_deref() == Some(name)
    });
    found
}

/// Whether a macro body (`preproc_arg`) names `kernel` as a word: the
/// macro's uses are not read, so it may launch the kernel any way.
pub(crate) fn macro_names(body: &str, kernel: &str) -> bool {
    body.match_indices(kernel).any(|(i, _)| {
        let word = |c: char| c.is_alphanumeric() || c == '_';
        !body[..i].ends_with(word) && !body[i + kernel.len()..].starts_with(word)
    })
}

/// The functions a local pointer or table of functions may hold, when a
/// launch goes through it (`p<<<…>>>`, `table[i]<<<…>>>`): every write to
/// it (its initializer, `p = &k`, `table[i] = k`) stores a function's name,
/// and it is otherwise only launched or compared (`p == &k`). Then the
/// names stored (`names`: their identifiers) are understood uses: each
/// function gets the launches through the variable.
#[derive(Default)]
pub(crate) struct Held {
    pub targets: Vec<String>,
    pub names: Vec<usize>,
}

/// The variable a launch's callee reads, when it is a local pointer
/// (`p`) or an element of a local table (`table[i]`).
pub(crate) fn launch_variable(text: &str, callee: Node) -> Option<String> {
    match callee.kind() {
        "identifier" => Some(node_text(text, callee).to_string()),
        "subscript_expression" => callee
            .child_by_field_name("argument")
            .filter(|a| a.kind() == "identifier")
            .map(|a| node_text(text, a).to_string()),
        "parenthesized_expression" => launch_variable(text, callee.named_child(0)?),
        "pointer_expression" => launch_variable(text, callee.child_by_field_name("argument")?),
        _ => None,
    }
}

pub(crate) fn held_by(text: &str, call: Node, var: &str) -> Option<Held> {
    let mut func = call.parent();
    while let Some(n) = func {
        if n.kind() == "function_definition" {
            break;
        }
        func = n.parent();
    }
    let func = func?;
    let mut held = Held::default();
    let mut declared = false;
    for n in crate::syntax::identifiers_named(text, func, var) {
        let mut u = n;
        if let Some(p) = u
            .parent()
            .filter(|p| p.kind() == "subscript_expression")
            .filter(|p| {
                p.child_by_field_name("argument")
                    .is_some_and(|a| a.id() == u.id())
            })
        {
            u = p;
        }
        let parent = u.parent()?;
        let is_field = |f: &str| {
            parent
                .child_by_field_name(f)
                .is_some_and(|x| x.id() == u.id())
        };
        match parent.kind() {
            "call_expression" if is_field("function") => {
                crate::syntax::queries::launch(parent, text)?;
            }
            "binary_expression"
                if parent
                    .child_by_field_name("operator")
                    .is_some_and(|o| matches!(node_text(text, o), "==" | "!=")) => {}
            "assignment_expression"
                if is_field("left")
                    && parent
                        .child_by_field_name("operator")
                        .is_some_and(|o| node_text(text, o) == "=") =>
            {
                hold(text, parent.child_by_field_name("right")?, &mut held)?;
            }
            _ if u.id() == n.id() => {
                // A declarator: `void (*p)(float *) = &k;`, `fn table[] = {..}`.
                let mut d = n;
                loop {
                    let p = d.parent()?;
                    match p.kind() {
                        "pointer_declarator" | "parenthesized_declarator" | "array_declarator" => {}
                        "function_declarator"
                            if p.child_by_field_name("declarator")
                                .is_some_and(|x| x.id() == d.id()) => {}
                        "init_declarator" => {
                            let value = p.child_by_field_name("value")?;
                            match value.kind() {
                                "initializer_list" => {
                                    for v in crate::syntax::items(value) {
                                        hold(text, v, &mut held)?;
                                    }
                                }
                                _ => hold(text, value, &mut held)?,
                            }
                            break;
                        }
                        "declaration" => break,
                        _ => return None,
                    }
                    d = p;
                }
                declared = true;
            }
            _ => return None,
        }
    }
    declared.then_some(held)
}

/// A stored function name: `k`, `&k`, `(fn)k`.
fn hold(text: &str, mut v: Node, held: &mut Held) -> Option<()> {
    loop {
        match v.kind() {
            "identifier" => break,
            "parenthesized_expression" => v = v.named_child(0)?,
            "cast_expression" => v = v.child_by_field_name("value")?,
            "pointer_expression" => v = v.child_by_field_name("argument")?,
            // `k<16>` held: its template arguments are not carried to the
            // launch, so it is not understood.
            _ => return None,
        }
    }
    held.targets.push(node_text(text, v).to_string());
    held.names.push(v.id());
    Some(())
}
