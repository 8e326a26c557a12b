//! Ways a kernel can run that a `<<<…>>>` launch site does not show: its
//! name used as a value (`cudaLaunchKernel((void*)k, …)`, `&k`, a table of
//! kernels `{k1, k2}`, a pointer `p = k` launched elsewhere, a macro body
//! naming it). Each such use may launch the kernel with any sizes and any
//! arguments, so the launch facts read from the `<<<…>>>` sites do not hold
//! for it: the kernel is checked under a launch of any size instead, and
//! the report names the uses that made it so.
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

/// What an identifier naming a kernel does there, when it is a use that
/// may launch the kernel in a way the launch sites do not show (`None`: a
/// `<<<…>>>` callee, a declaration, another entity, a non-launching query).
pub(crate) fn other_use(text: &str, ident: Node) -> Option<String> {
    let name = node_text(text, ident);
    // `k<16>`, `ns::k`, `&k`, `(void *)k`, `(k)`: the use is the whole.
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
    Some(match parent.kind() {
        "argument_list" => {
            let callee = parent
                .parent()
                .filter(|c| c.kind() == "call_expression")
                .and_then(|c| c.child_by_field_name("function"))
                .map(|f| node_text(text, f).to_string())
                .unwrap_or_default();
            let bare = callee.rsplit("::").next().unwrap_or(&callee);
            if NON_LAUNCHING.contains(&bare) {
                return None;
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
    })
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
fn declares_variable(text: &str, decl: Node, name: &str) -> bool {
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
