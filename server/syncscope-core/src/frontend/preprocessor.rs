//! The preprocessor's arithmetic: `#define`s, the device pass's macros
//! (`__CUDACC__`, `__CUDA_ARCH__`, `__SYNCSCOPE__`), which `#if`/`#elif` branch is taken, and
//! constant expressions and integer literals as C evaluates them. Must not
//! walk declarations (that is `collect`).

use super::*;

/// The macros nvcc defines for the device pass of a file, and
/// `__SYNCSCOPE__`: the pass Syncscope reads keeps the annotations that
/// `include/syncscope.h` (or an `#ifdef __SYNCSCOPE__`) hides from a real
/// compiler. nvcc compiles C++ (C++17 by default since CUDA 11), so
/// `__cplusplus` is defined: a header's `#ifdef __cplusplus` `extern "C" {`
/// is read.
pub fn device_pass_macros(options: &Options) -> Vec<(String, String)> {
    vec![
        ("__SYNCSCOPE__".into(), "1".into()),
        ("__cplusplus".into(), "201703L".into()),
        ("__CUDACC__".into(), "1".into()),
        ("__NVCC__".into(), "1".into()),
        ("__CUDA_ARCH__".into(), options.cuda_arch.to_string()),
    ]
}

/// The macros a device pass starts with: nvcc's, then the `-D`s (a later
/// one wins).
pub fn pass_defines(options: &Options) -> Vec<(String, String)> {
    let mut defines = device_pass_macros(options);
    defines.extend(options.defines.iter().cloned());
    defines
}

pub(crate) fn macro_def(text: &str, node: Node) -> Option<(String, Macro)> {
    let name = node_text(text, node.field("name")?).to_string();
    let body = node
        .field("value")
        .map(|v| node_text(text, v).trim().to_string())
        .unwrap_or_default();
    let params = node.field("parameters").map(|p| {
        let mut c = p.walk();
        p.named_children(&mut c)
            .map(|n| node_text(text, n).to_string())
            .collect()
    });
    Some((name, Macro { params, body }))
}

/// The items of the taken branch of a preprocessor conditional.
pub(crate) fn preproc_branch<'t>(
    text: &str,
    node: Node<'t>,
    macros: &HashMap<String, Macro>,
) -> Vec<Node<'t>> {
    let taken = match node.kind() {
        "preproc_ifdef" => {
            let name = node.field("name").map(|n| node_text(text, n)).unwrap_or("");
            let defined = macros.contains_key(name);
            let negate = node
                .child(0)
                .map(|c| node_text(text, c).starts_with("#ifndef"))
                .unwrap_or(false);
            defined != negate
        }
        "preproc_if" | "preproc_elif" => node
            .field("condition")
            .and_then(|c| const_eval(text, c, macros, &HashMap::new()))
            .map(|v| v != 0)
            .unwrap_or(false),
        "preproc_else" => true,
        _ => false,
    };
    if taken {
        let mut out = Vec::new();
        let mut c = node.walk();
        for (i, child) in node.children(&mut c).enumerate() {
            let field = node.field_name_for_child(i as u32);
            if child.is_named() && !matches!(field, Some("condition" | "name" | "alternative")) {
                out.push(child);
            }
        }
        out
    } else if let Some(alt) = node.field("alternative") {
        preproc_branch(text, alt, macros)
    } else {
        Vec::new()
    }
}

/// Evaluates a constant expression (preprocessor conditions, enumerators,
/// array sizes). Unknown identifiers are 0 in `#if`, as in C.
pub(crate) fn const_eval(
    text: &str,
    node: Node,
    macros: &HashMap<String, Macro>,
    enums: &HashMap<String, i64>,
) -> Option<i64> {
    const_eval_depth(text, node, macros, enums, 0)
}

pub(super) fn const_eval_depth(
    text: &str,
    node: Node,
    macros: &HashMap<String, Macro>,
    enums: &HashMap<String, i64>,
    depth: usize,
) -> Option<i64> {
    if depth > 64 {
        return None;
    }
    let ev = |n: Node| const_eval_depth(text, n, macros, enums, depth + 1);
    match node.kind() {
        "number_literal" => parse_int(node_text(text, node)),
        "char_literal" => node_text(text, node).chars().nth(1).map(|c| c as i64),
        "true" => Some(1),
        "false" => Some(0),
        "parenthesized_expression" => ev(node.named_child(0)?),
        "preproc_defined" => {
            let mut c = node.walk();
            let name = node.named_children(&mut c).next()?;
            Some(macros.contains_key(node_text(text, name)) as i64)
        }
        "identifier" => {
            let name = node_text(text, node);
            if let Some(v) = enums.get(name) {
                return Some(*v);
            }
            match macros.get(name) {
                Some(m) if m.params.is_none() => {
                    if m.body.is_empty() {
                        return Some(0);
                    }
                    let tree = crate::syntax::parse(&format!("int __v = ({});", m.body), None);
                    let decl = tree.root_node().named_child(0)?;
                    let init = decl.field("declarator")?;
                    let value = init.field("value")?;
                    let src = format!("int __v = ({});", m.body);
                    const_eval_depth(&src, value, macros, enums, depth + 1)
                }
                _ => Some(0),
            }
        }
        "unary_expression" => {
            let v = ev(node.field("argument")?)?;
            match node_text(text, node.field("operator")?) {
                "-" => v.checked_neg(),
                "+" => Some(v),
                "!" => Some((v == 0) as i64),
                "~" => Some(!v),
                _ => None,
            }
        }
        "binary_expression" => {
            let a = ev(node.field("left")?)?;
            let b = ev(node.field("right")?)?;
            let op = node_text(text, node.field("operator")?);
            crate::model::fold(binop(op)?, a, b)
        }
        "conditional_expression" => {
            let c = ev(node.field("condition")?)?;
            if c != 0 {
                ev(node.field("consequence")?)
            } else {
                ev(node.field("alternative")?)
            }
        }
        "cast_expression" => ev(node.field("value")?),
        _ => None,
    }
}

pub(crate) fn binop(op: &str) -> Option<crate::model::BinOp> {
    use crate::model::BinOp::*;
    Some(match op {
        "+" => Add,
        "-" => Sub,
        "*" => Mul,
        "/" => Div,
        "%" => Rem,
        "<<" => Shl,
        ">>" => Shr,
        "&" => BitAnd,
        "|" => BitOr,
        "^" => BitXor,
        "<" => Lt,
        "<=" => Le,
        ">" => Gt,
        ">=" => Ge,
        "==" => Eq,
        "!=" => Ne,
        "&&" => And,
        "||" => Or,
        _ => return None,
    })
}

/// Parses a C integer literal (decimal, hex, octal, binary; `u`/`l` suffixes).
/// Floating literals and out-of-range values give `None`.
pub(crate) fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim().replace('\'', "");
    let lower = s.to_ascii_lowercase();
    let digits = lower.trim_end_matches(['u', 'l']);
    if let Some(hex) = digits.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16).ok();
    }
    if digits.contains(['.', 'e', 'f', 'p']) {
        return None;
    }
    if let Some(bin) = digits.strip_prefix("0b") {
        return i64::from_str_radix(bin, 2).ok();
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return i64::from_str_radix(&digits[1..], 8).ok();
    }
    digits.parse().ok()
}

/// The value of the condition of an `#if` line written as text (without
/// `#if`), under `macros`; `None` when it cannot be evaluated. The project
/// model decides with it which `#include` lines a build reads.
pub(crate) fn condition_value(condition: &str, macros: &HashMap<String, Macro>) -> Option<i64> {
    let src = format!("#if {condition}\n#endif\n");
    let tree = crate::syntax::parse(&src, None);
    let cond = tree
        .root_node()
        .named_child(0)
        .filter(|n| n.kind() == "preproc_if")
        .and_then(|n| n.child_by_field_name("condition"))?;
    const_eval(&src, cond, macros, &HashMap::new())
}
