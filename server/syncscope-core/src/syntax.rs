//! Parsing with tree-sitter-cuda. Parsing never fails: syntax errors are
//! nodes of the tree, collected here as findings, and well-formed kernels
//! elsewhere in the file are still analysed.

use crate::report::{Finding, FindingKind, Span};

pub fn language() -> tree_sitter::Language {
    tree_sitter_cuda::LANGUAGE.into()
}

pub fn parse(text: &str, old: Option<&tree_sitter::Tree>) -> tree_sitter::Tree {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&language())
        .expect("tree-sitter-cuda is compatible with the linked tree-sitter");
    // tree-sitter returns None only on cancellation or timeout, neither of
    // which we set; fall back to a fresh parse if an old tree misbehaves.
    parser
        .parse(text, old)
        .or_else(|| parser.parse(text, None))
        .expect("parse without timeout or cancellation")
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

/// Converts a byte offset in `text` to a 0-based (line, UTF-16 column).
pub fn utf16_column(text: &str, line_start: usize, offset: usize) -> u32 {
    let end = offset.min(text.len());
    let start = line_start.min(end);
    text.get(start..end)
        .map(|s| s.encode_utf16().count() as u32)
        .unwrap_or(0)
}
