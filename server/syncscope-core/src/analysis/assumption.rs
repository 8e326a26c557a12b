//! The one way a quick-fix states an assumption in the user's code: a
//! `__requires(c);` at the top of the kernel's body, in a form a real build
//! (nvcc, clang, g++) compiles. Every fix that adds an assumption builds its
//! edit here, so none can insert a bare annotation that breaks the build.
//!
//! * The file includes `syncscope.h` (which defines the annotations away
//!   unless `__SYNCSCOPE__` is defined): the plain `__requires(c);`.
//! * Otherwise the annotation is guarded where it is written,
//!   `#ifdef __SYNCSCOPE__` / `__requires(c);` / `#endif`: it compiles with
//!   no header at all, and the fix adds no `#include` a build might not find.
//!
//! Syncscope defines `__SYNCSCOPE__` in the pass it reads
//! (`frontend::preprocessor`), so both forms are the same assumption to it.

use crate::report::{Fix, LineStarts, Span, TextEdit};
use crate::syntax::{function_name, node_text, FieldExt};
use tree_sitter::Node;

/// The header that defines the annotations away for a real compiler
/// (`include/syncscope.h` of the repository).
pub const ANNOTATION_HEADER: &str = "syncscope.h";

/// The header's text (`syncscope header` prints it): the binary carries it so
/// a project can add it without the repository.
pub const ANNOTATION_HEADER_TEXT: &str = include_str!("../../../../include/syncscope.h");

/// The macro Syncscope defines in the pass it reads, and a real build does not.
pub const ANALYSIS_MACRO: &str = "__SYNCSCOPE__";

/// Whether `text` includes the annotation header itself
/// (`#include "syncscope.h"`, `<syncscope.h>`, or a path ending in it).
pub fn includes_annotation_header(text: &str) -> bool {
    crate::project::unit::directives(text)
        .iter()
        .any(|d| d.name == ANNOTATION_HEADER || d.name.ends_with(&format!("/{ANNOTATION_HEADER}")))
}

/// The lines that state `condition` as a precondition, each indented by
/// `indent` (preprocessor lines start in column 0, as C code usually has them).
pub fn assumption_lines(condition: &str, indent: &str, header_included: bool) -> String {
    let claim = format!("{indent}__requires({condition});\n");
    if header_included {
        claim
    } else {
        format!("#ifdef {ANALYSIS_MACRO}\n{claim}#endif\n")
    }
}

/// A quick-fix that assumes `condition` in kernel `kernel` of `text`: the
/// annotation goes on its own lines right after the body's `{`. `None` when
/// no function of that name with a body is at the top level of `text`
/// (or in a namespace, `extern "C"` block or template there).
pub fn assumption_fix(text: &str, kernel: &str, condition: &str, verified: bool) -> Option<Fix> {
    let tree = crate::syntax::parse(text, None);
    let body = kernel_body(text, tree.root_node(), kernel)?;
    let brace_end = body.start_byte() + 1;
    let lines = assumption_lines(
        condition,
        &body_indent(text, body),
        includes_annotation_header(text),
    );
    // Inserted after the brace's line break (or after the brace, with one of
    // its own, when code follows the brace on its line).
    let (at, new_text) = match text[brace_end..].find('\n') {
        Some(nl) if text[brace_end..brace_end + nl].trim().is_empty() => {
            (brace_end + nl + 1, lines)
        }
        _ => (brace_end, format!("\n{lines}")),
    };
    let starts = LineStarts::new(text);
    let point = starts.point(text, at);
    Some(Fix {
        title: format!("Assume `{condition}` (precondition)"),
        edits: vec![TextEdit {
            span: Span {
                start: point,
                end: point,
            },
            new_text,
        }],
        verified,
        precondition: true,
    })
}

/// The body of the function named `name` (the first definition found).
fn kernel_body<'t>(text: &str, root: Node<'t>, name: &str) -> Option<Node<'t>> {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "function_definition" {
            if function_name(text, node).as_deref() == Some(name) {
                if let Some(body) = node.field("body") {
                    return Some(body);
                }
            }
            continue;
        }
        let mut c = node.walk();
        let children: Vec<Node> = node.named_children(&mut c).collect();
        stack.extend(children.into_iter().rev());
    }
    None
}

/// The indentation of the body's first statement, or the brace line's
/// indentation and four spaces for an empty body.
fn body_indent(text: &str, body: Node) -> String {
    let line_indent = |offset: usize| -> String {
        let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        text[start..]
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect()
    };
    let mut c = body.walk();
    let first = body
        .named_children(&mut c)
        .find(|n| !n.kind().starts_with("preproc") && n.kind() != "comment");
    match first {
        // A statement on the brace's own line (`{ x = 1; }`) gives no indentation.
        Some(s) if node_text(text, body)[..s.start_byte() - body.start_byte()].contains('\n') => {
            line_indent(s.start_byte())
        }
        _ => format!("{}    ", line_indent(body.start_byte())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, fix: &Fix) -> String {
        let e = &fix.edits[0];
        let at = e.span.start.offset as usize;
        format!("{}{}{}", &text[..at], e.new_text, &text[at..])
    }

    #[test]
    fn without_the_header_the_assumption_is_guarded() {
        let src = "__global__ void k(float *a, int n)\n{\n    a[threadIdx.x] = n;\n}\n";
        let fix = assumption_fix(src, "k", "n >= 16", true).unwrap();
        assert_eq!(
            apply(src, &fix),
            "__global__ void k(float *a, int n)\n{\n#ifdef __SYNCSCOPE__\n    __requires(n >= 16);\n#endif\n    a[threadIdx.x] = n;\n}\n"
        );
        assert!(fix.verified);
    }

    #[test]
    fn with_the_header_the_assumption_is_plain() {
        let src = "#include \"syncscope.h\"\nnamespace d {\n  template <int B>\n  __global__ void k(int *a) {\n\ta[threadIdx.x] = B;\n  }\n}\n";
        let fix = assumption_fix(src, "k", "blockDim.x == B", false).unwrap();
        assert_eq!(
            apply(src, &fix),
            "#include \"syncscope.h\"\nnamespace d {\n  template <int B>\n  __global__ void k(int *a) {\n\t__requires(blockDim.x == B);\n\ta[threadIdx.x] = B;\n  }\n}\n"
        );
    }

    #[test]
    fn code_on_the_brace_line_moves_to_its_own_line_after_the_claim() {
        let src = "#include <syncscope.h>\n__global__ void k(int *a) { a[0] = 1; }\n";
        let fix = assumption_fix(src, "k", "gridDim.x == 1", false).unwrap();
        assert_eq!(
            apply(src, &fix),
            "#include <syncscope.h>\n__global__ void k(int *a) {\n    __requires(gridDim.x == 1);\n a[0] = 1; }\n"
        );
    }

    #[test]
    fn a_kernel_that_is_not_there_gets_no_fix() {
        assert!(assumption_fix("__global__ void k(int *a);\n", "k", "true", false).is_none());
        assert!(assumption_fix("__global__ void k(int *a) {}\n", "j", "true", false).is_none());
    }

    #[test]
    fn the_header_is_recognised_by_its_file_name() {
        assert!(includes_annotation_header(
            "#include \"../include/syncscope.h\"\n"
        ));
        assert!(includes_annotation_header("  #  include <syncscope.h>\n"));
        assert!(!includes_annotation_header("#include \"mysyncscope.h\"\n"));
        assert!(!includes_annotation_header("// #include \"syncscope.h\"\n"));
    }
}
