//! Parsing with tree-sitter-cuda. Parsing never fails: syntax errors are
//! nodes of the tree, collected here as findings, and well-formed kernels
//! elsewhere in the file are still analysed.

mod prefix_trees;
pub(crate) mod queries;

#[cfg(test)]
pub(crate) use prefix_trees::fresh_parses as prefix_parses;
pub(crate) use prefix_trees::parse_unit;

use crate::report::{Finding, FindingKind, Span};
use tree_sitter::Node;

pub(crate) fn language() -> tree_sitter::Language {
    tree_sitter_cuda::LANGUAGE.into()
}

thread_local! {
    /// One parser per thread: creating one per parse dominates small parses
    /// (macro bodies are parsed as snippets).
    static PARSER: std::cell::RefCell<tree_sitter::Parser> = std::cell::RefCell::new({
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&language())
            .expect("tree-sitter-cuda is compatible with the linked tree-sitter");
        parser
    });
}

pub(crate) fn parse(text: &str, old: Option<&tree_sitter::Tree>) -> tree_sitter::Tree {
    PARSER.with(|p| {
        let mut parser = p.borrow_mut();
        // tree-sitter returns None only on cancellation or timeout, neither
        // of which we set; fall back to a fresh parse if an old tree misbehaves.
        parser
            .parse(text, old)
            .or_else(|| parser.parse(text, None))
            .expect("parse without timeout or cancellation")
    })
}

/// Every ERROR and MISSING node, outermost first, as syntax findings.
pub fn syntax_errors(tree: &tree_sitter::Tree, text: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let root = tree.root_node();
    if !root.has_error() {
        return out;
    }
    // Iterative walk: deeply nested input must not overflow the stack.
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        let mut descend = node.has_error();
        if node.is_error() || node.is_missing() {
            let span = Span::from_node(&node);
            let message = if node.is_missing() {
                format!("syntax error: missing `{}`", node.kind())
            } else {
                let snippet: String = text
                    .get(node.start_byte()..node.end_byte())
                    .unwrap_or("")
                    .chars()
                    .take(30)
                    .collect::<String>()
                    .replace('\n', " ");
                format!("syntax error: unexpected `{}`", snippet.trim())
            };
            out.push(Finding::new(FindingKind::SyntaxError, None, span, message));
            descend = false;
            if out.len() >= 100 {
                break;
            }
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    out
}

/// Field lookup by name without tree-sitter's per-call name search.
///
/// `Node::child_by_field_name` resolves the name with a linear `strncmp` scan
/// over the grammar's field names on every call, which was the largest single
/// cost of lowering (about an eighth of it). The ids of the fields the front
/// end uses are resolved once.
pub(crate) trait FieldExt<'t> {
    fn field(&self, name: &'static str) -> Option<tree_sitter::Node<'t>>;
}

/// The fields the front end asks for (any other name falls back to the
/// grammar's lookup).
const FIELDS: [&str; 26] = [
    "declarator",
    "value",
    "argument",
    "name",
    "operator",
    "condition",
    "left",
    "body",
    "parameters",
    "arguments",
    "alternative",
    "right",
    "consequence",
    "type",
    "indices",
    "function",
    "field",
    "update",
    "size",
    "initializer",
    "index",
    "default_value",
    "default_type",
    "label",
    "designator",
    "scope",
];

fn field_id(name: &str) -> Option<u16> {
    static IDS: std::sync::OnceLock<[Option<u16>; FIELDS.len()]> = std::sync::OnceLock::new();
    let ids = IDS.get_or_init(|| {
        let lang = language();
        FIELDS.map(|f| lang.field_id_for_name(f).map(|id| id.get()))
    });
    match FIELDS.iter().position(|f| *f == name) {
        Some(i) => ids[i],
        None => language().field_id_for_name(name).map(|id| id.get()),
    }
}

impl<'t> FieldExt<'t> for tree_sitter::Node<'t> {
    fn field(&self, name: &'static str) -> Option<tree_sitter::Node<'t>> {
        self.child_by_field_id(field_id(name)?)
    }
}

// ----- tree helpers: reading nodes of the tree-sitter-cuda grammar --------

pub(crate) fn node_text<'a>(text: &'a str, node: Node) -> &'a str {
    text.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

/// True if a declaration has the qualifier/specifier `q` among its direct children.
pub(crate) fn has_qualifier(text: &str, node: Node, q: &str) -> bool {
    let mut c = node.walk();
    let found = node.children(&mut c).any(|ch| {
        matches!(
            ch.kind(),
            "type_qualifier" | "storage_class_specifier" | "attribute_specifier"
        ) && node_text(text, ch).trim() == q
            || ch.kind() == q
    });
    found
}

pub(crate) fn function_name(text: &str, def: Node) -> Option<String> {
    let mut d = def.field("declarator")?;
    loop {
        match d.kind() {
            "function_declarator" | "pointer_declarator" | "reference_declarator" => {
                d = d.field("declarator").or_else(|| d.named_child(0))?;
            }
            "identifier" | "field_identifier" => return Some(node_text(text, d).to_string()),
            "qualified_identifier" => {
                return d.field("name").map(|n| node_text(text, n).to_string())
            }
            "template_function" => return d.field("name").map(|n| node_text(text, n).to_string()),
            // `operator()`, `operator+=`: spelled without spaces, so a
            // method is found by `operator{op}`.
            "operator_name" => {
                let spelled: String = node_text(text, d)
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect();
                return Some(spelled);
            }
            _ => return None,
        }
    }
}

/// Whether a function definition has internal linkage: `static` at
/// namespace scope, or defined inside an anonymous namespace. Such a
/// function is called only from the translation unit that compiles it
/// (each unit including its file compiles its own copy), so its calls in
/// one unit are every call of that unit's copy, whatever other files name.
/// A `static` member function (inside a class body) has external linkage.
pub(crate) fn has_internal_linkage(text: &str, def: Node) -> bool {
    let mut is_static = {
        let mut c = def.walk();
        let found = def.named_children(&mut c).any(|s| {
            s.kind() == "storage_class_specifier" && node_text(text, s).trim() == "static"
        });
        found
    };
    let mut p = def.parent();
    while let Some(n) = p {
        match n.kind() {
            "field_declaration_list" | "lambda_expression" | "compound_statement" => return false,
            "namespace_definition" if n.child_by_field_name("name").is_none() => {
                is_static = true;
            }
            _ => {}
        }
        p = n.parent();
    }
    is_static
}

/// The identifier a declarator declares (`*p`, `s[4][4]`, `&r`, `x = 1`).
pub(crate) fn declarator_name(text: &str, mut d: Node) -> Option<String> {
    for _ in 0..64 {
        match d.kind() {
            "identifier" | "field_identifier" => return Some(node_text(text, d).to_string()),
            _ => {
                d = d.field("declarator").or_else(|| {
                    let mut c = d.walk();
                    let found = d
                        .named_children(&mut c)
                        .find(|n| n.kind().contains("declarator") || n.kind() == "identifier");
                    found
                })?;
            }
        }
    }
    None
}

pub(crate) fn contains_kind(node: Node, kind: &str) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == kind {
            return true;
        }
        if n.kind() == "init_declarator" {
            if let Some(d) = n.field("declarator") {
                stack.push(d);
            }
            continue;
        }
        let mut c = n.walk();
        for ch in n.named_children(&mut c) {
            if ch.kind().contains("declarator") {
                stack.push(ch);
            }
        }
    }
    false
}

/// The parameter declarations of a function definition.
pub(crate) fn function_params(fnode: Node) -> Vec<Node> {
    fnode
        .field("declarator")
        .and_then(find_function_declarator)
        .and_then(|f| f.field("parameters"))
        .map(items)
        .unwrap_or_default()
}

/// The items of a list node (parameters, arguments, initializers,
/// statements): its named children without the comments between them.
pub(crate) fn items(list: Node) -> Vec<Node> {
    let mut c = list.walk();
    list.named_children(&mut c)
        .filter(|n| n.kind() != "comment")
        .collect()
}

/// The expression inside any parentheses around `n`.
pub(crate) fn strip_parentheses(mut n: Node) -> Node {
    while n.kind() == "parenthesized_expression" {
        match n.named_child(0) {
            Some(m) => n = m,
            None => break,
        }
    }
    n
}

/// The arguments of a call expression.
/// Every identifier spelled `name` inside `scope`, in the order of a
/// depth-first walk that takes the last child first (the order the
/// readers of host code have always visited them in).
pub(crate) fn identifiers_named<'t>(text: &str, scope: Node<'t>, name: &str) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut stack = vec![scope];
    while let Some(n) = stack.pop() {
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
        if n.kind() == "identifier" && node_text(text, n) == name {
            out.push(n);
        }
    }
    out
}

pub(crate) fn call_arguments(call: Node) -> Vec<Node> {
    call.child_by_field_name("arguments")
        .map(items)
        .unwrap_or_default()
}

pub(crate) fn find_function_declarator(node: Node) -> Option<Node> {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "function_declarator" {
            return Some(n);
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    None
}

pub(crate) fn find_identifier<'t>(node: Node<'t>, src: &str, name: &str) -> Option<Node<'t>> {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" && node_text(src, n) == name {
            return Some(n);
        }
        if n.kind() == "parameter_list" {
            continue;
        }
        let mut c = n.walk();
        let mut kids: Vec<Node> = n.named_children(&mut c).collect();
        kids.reverse();
        stack.extend(kids);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_are_findings_not_failures() {
        let src = "__global__ void ok(int *a) { a[0] = 1; }\n__global__ void bad( { \n";
        let tree = parse(src, None);
        let errs = syntax_errors(&tree, src);
        assert!(!errs.is_empty());
        assert!(errs
            .iter()
            .all(|f| f.kind == crate::report::FindingKind::SyntaxError));
    }
}
