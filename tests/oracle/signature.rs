//! Reading kernels' names and parameters from source with tree-sitter, so
//! that the harness can give every scalar parameter boundary values
//! (generated cases know their parameters; corpus kernels do not).

use super::generate::{Param, ParamKind};

pub fn parse(text: &str) -> tree_sitter::Tree {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_cuda::LANGUAGE.into())
        .expect("the CUDA grammar loads");
    parser.parse(text, None).expect("tree-sitter parses")
}

/// The 1-based lines of the tree's error and missing nodes.
pub fn error_lines(text: &str) -> Vec<usize> {
    let tree = parse(text);
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            out.push(n.start_position().row + 1);
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
    out.sort_unstable();
    out
}

/// `text` without the bodies of the `__global__` functions other than
/// `kernel` (blanked): what `kernel` and the device functions it may call
/// are written in.
pub fn without_other_kernels(text: &str, kernel: &str) -> String {
    let tree = parse(text);
    let mut out = text.as_bytes().to_vec();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.kind() == "function_definition" {
            if let (Some((name, _)), Some(body)) =
                (self::kernel(text, n), n.child_by_field_name("body"))
            {
                if name != kernel {
                    for b in &mut out[body.byte_range()] {
                        if *b != b'\n' {
                            *b = b' ';
                        }
                    }
                }
            }
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// Every `__global__` function of `text`: name and parameters.
pub fn kernels(text: &str) -> Vec<(String, Vec<Param>)> {
    let tree = parse(text);
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.kind() == "function_definition" {
            if let Some(k) = kernel(text, n) {
                out.push(k);
            }
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
    out.sort_by_key(|(name, _)| name.clone());
    out
}

fn kernel(text: &str, def: tree_sitter::Node) -> Option<(String, Vec<Param>)> {
    let declarator = def.child_by_field_name("declarator")?;
    // `__global__` is written before the declarator (attributes, storage).
    let head = &text[def.start_byte()..declarator.start_byte()];
    if !head.contains("__global__") {
        return None;
    }
    let mut d = declarator;
    while d.kind() != "function_declarator" {
        d = d.child_by_field_name("declarator")?;
    }
    let name = d.child_by_field_name("declarator")?;
    let name = text[name.byte_range()]
        .rsplit("::")
        .next()?
        .trim()
        .to_string();
    let list = d.child_by_field_name("parameters")?;
    let mut params = Vec::new();
    let mut c = list.walk();
    for p in list.named_children(&mut c) {
        if p.kind() != "parameter_declaration" {
            continue;
        }
        let ty = p
            .child_by_field_name("type")
            .map(|t| text[t.byte_range()].to_string())
            .unwrap_or_default();
        let Some(decl) = p.child_by_field_name("declarator") else {
            continue;
        };
        let decl_text = &text[decl.byte_range()];
        let Some(pname) = identifier(text, decl) else {
            continue;
        };
        let whole = &text[p.byte_range()];
        let pointer =
            decl.kind() != "identifier" && (decl_text.contains('*') || decl_text.contains('['));
        let kind = if pointer {
            ParamKind::Pointer
        } else if ["float", "double", "half", "__half"]
            .iter()
            .any(|f| ty.contains(f))
        {
            ParamKind::Float
        } else if ["unsigned", "uint", "size_t"]
            .iter()
            .any(|u| whole.contains(u))
        {
            ParamKind::Unsigned
        } else {
            ParamKind::Int
        };
        params.push(Param { name: pname, kind });
    }
    Some((name, params))
}

/// The name a declarator declares (`*const p`, `(*tile)[32]`, `&r`).
fn identifier(text: &str, mut n: tree_sitter::Node) -> Option<String> {
    loop {
        if n.kind() == "identifier" {
            return Some(text[n.byte_range()].to_string());
        }
        n = match n.child_by_field_name("declarator") {
            Some(d) => d,
            None => {
                let mut c = n.walk();
                let next = n
                    .named_children(&mut c)
                    .find(|k| k.kind() != "type_qualifier");
                next?
            }
        };
    }
}
