//! Row pitches held by a global: `size_t pitch;` filled by
//! `cudaMallocPitch(&ptr, &pitch, width, height)` in one file of a project
//! and passed to a kernel in another (`extern size_t pitch;`). CUDA returns
//! a pitch of at least the `width` bytes asked for, so a launch passing the
//! global passes at least the least width any allocation into it asks for,
//! when every other use of the global in the project only reads it.
//!
//! What this assumes, and says in `docs/diagnostics.md`: the launch runs
//! after an allocation has filled the global (a launch before any would
//! pass its initial value, typically 0). The order of calls across files
//! is not read.

use crate::frontend::FileContext;
use crate::syntax::node_text;
use tree_sitter::Node;

/// The uses of a global in one unit, when all of them are understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PitchWrites {
    /// The width, in bytes, of each `cudaMallocPitch(.., &g, width, ..)`.
    pub widths: Vec<i64>,
    /// Declared `static` at file scope: the other files' variables of that
    /// name are others.
    pub file_local: bool,
}

/// The allocations into the file-scope variable `name` in a unit, when
/// every use of it there is its declaration, such an allocation (its width
/// a constant) or a read: `None` when one may write it otherwise (assigned,
/// incremented, its address taken elsewhere, passed to a function that may
/// take it by reference, named in a macro) or when a function declares its
/// own variable of that name.
pub(crate) fn pitch_writes(
    text: &str,
    root: Node,
    cx: &FileContext,
    name: &str,
) -> Option<PitchWrites> {
    let mut out = PitchWrites {
        widths: Vec::new(),
        file_local: false,
    };
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
        match n.kind() {
            // A macro may write it where it expands.
            "preproc_arg" if super::kernel_uses::macro_names(node_text(text, n), name) => {
                return None
            }
            "identifier" if node_text(text, n) == name => {}
            _ => continue,
        }
        let parent = n.parent()?;
        let is = |f: &str| {
            parent
                .child_by_field_name(f)
                .is_some_and(|x| x.id() == n.id())
        };
        match parent.kind() {
            // `extern size_t g;`, `size_t g = 0;` at file scope.
            "declaration" | "init_declarator" if is("declarator") => {
                let decl = if parent.kind() == "declaration" {
                    parent
                } else {
                    parent.parent()?
                };
                if enclosing_function(decl).is_some() {
                    return None;
                }
                let mut c = decl.walk();
                if decl.named_children(&mut c).any(|s| {
                    s.kind() == "storage_class_specifier" && node_text(text, s) == "static"
                }) {
                    out.file_local = true;
                }
            }
            "pointer_expression"
                if parent
                    .child_by_field_name("operator")
                    .is_some_and(|o| node_text(text, o) == "&") =>
            {
                let (call, width) = pitch_allocation(text, parent)?;
                let w = super::host_constant(text, call, cx, width).filter(|w| *w > 0)?;
                out.widths.push(w);
            }
            "assignment_expression" if is("left") => return None,
            "update_expression" => return None,
            "argument_list" => {
                let call = parent.parent().filter(|c| c.kind() == "call_expression")?;
                let index = crate::syntax::items(parent)
                    .iter()
                    .position(|a| a.id() == n.id())?;
                if !super::reads_argument(text, call, index) {
                    return None;
                }
            }
            // `size_t &r = g;`: writes through `r` write `g`.
            "init_declarator" if is("value") => {
                let by_ref = parent
                    .child_by_field_name("declarator")
                    .is_some_and(|d| d.kind() == "reference_declarator");
                if by_ref {
                    return None;
                }
            }
            // A parameter or local of a function: another variable that
            // hides the global there.
            "parameter_declaration"
            | "reference_declarator"
            | "pointer_declarator"
            | "array_declarator"
            | "function_declarator" => return None,
            // Read: in an expression, a condition, a `return`.
            _ => {}
        }
    }
    Some(out)
}

/// `&g` as the pitch argument of `cudaMallocPitch(&ptr, &g, width, height)`:
/// the call and its `width`.
fn pitch_allocation<'t>(text: &str, address: Node<'t>) -> Option<(Node<'t>, Node<'t>)> {
    let list = address.parent().filter(|p| p.kind() == "argument_list")?;
    let call = list.parent().filter(|c| c.kind() == "call_expression")?;
    let f = node_text(text, call.child_by_field_name("function")?);
    if f.rsplit("::").next() != Some("cudaMallocPitch") {
        return None;
    }
    let args = crate::syntax::items(list);
    if args.len() != 4 || args[1].id() != address.id() {
        return None;
    }
    Some((call, args[2]))
}

fn enclosing_function(node: Node) -> Option<Node> {
    let mut f = node.parent();
    while let Some(n) = f {
        if n.kind() == "function_definition" {
            return Some(n);
        }
        f = n.parent();
    }
    None
}

/// The least pitch the global `name` holds wherever it is read: the least
/// width of its allocations in the unit (`mine`) and, unless the unit's
/// variable is its own (`static`), in the project's other files
/// (`outside`: `None` when one of them uses it in a way not understood).
/// `None` without any allocation.
pub(crate) fn least_pitch(
    mine: Option<PitchWrites>,
    outside: &dyn Fn(&str) -> Option<Vec<i64>>,
    name: &str,
) -> Option<i64> {
    let mine = mine?;
    let mut widths = mine.widths;
    if !mine.file_local {
        widths.extend(outside(name)?);
    }
    widths.into_iter().min()
}
