//! For `syncscope equiv` (the driver parses, the equivalence check does
//! not): parameters of the two versions matched by position. When their names
//! differ but both kernels take the same types in the same order, the
//! second version's parameters are renamed to the first's (in its text,
//! inside the kernel only), and the report says so.

use crate::syntax::{declarator_name, function_name, function_params, node_text};
use tree_sitter::Node;

/// A kernel's parameters, each (type as written without the name, name),
/// and the byte range of its definition.
type Params = (Vec<(String, String)>, (usize, usize));

/// The parameters of the `__global__` function `kernel` in `text`.
fn params(text: &str, kernel: &str) -> Option<Params> {
    let tree = crate::parse(text, None);
    // The last kernel of that name in the file (by kernels.scm).
    let n = crate::syntax::queries::kernels(tree.root_node(), text)
        .into_iter()
        .rev()
        .find(|&n| function_name(text, n).as_deref() == Some(kernel))?;
    let mut out = Vec::new();
    for p in function_params(n) {
        let name = p
            .child_by_field_name("declarator")
            .and_then(|d| declarator_name(text, d))
            .unwrap_or_default();
        let whole = node_text(text, p);
        let ty = match whole.rfind(name.as_str()) {
            Some(i) if !name.is_empty() => {
                format!("{}{}", &whole[..i], &whole[i + name.len()..])
            }
            _ => whole.to_string(),
        };
        let ty: String = ty.split_whitespace().collect::<Vec<_>>().join(" ");
        out.push((ty.replace(" *", "*"), name));
    }
    Some((out, (n.start_byte(), n.end_byte())))
}

/// What matching by position did.
pub(crate) enum Matched {
    /// The same names: nothing to do.
    Same,
    /// `b`'s text with its parameters renamed, and the pairs `a ↔ b`.
    Renamed(String, Vec<(String, String)>),
    /// Not matched: why.
    Refused(String),
}

/// Matches `b`'s kernel parameters to `a`'s by position.
pub(crate) fn match_by_position(a_text: &str, a: &str, b_text: &str, b: &str) -> Matched {
    let (Some((pa, _)), Some((pb, span))) = (params(a_text, a), params(b_text, b)) else {
        return Matched::Same;
    };
    let names = |p: &[(String, String)]| p.iter().map(|x| x.1.clone()).collect::<Vec<_>>();
    if names(&pa) == names(&pb) {
        return Matched::Same;
    }
    let types = |p: &[(String, String)]| p.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
    if types(&pa) != types(&pb) || pa.iter().chain(&pb).any(|x| x.1.is_empty()) {
        let show = |p: &[(String, String)]| {
            p.iter()
                .map(|(t, n)| format!("{t} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Matched::Refused(format!(
            "the versions' parameters differ in names and cannot be matched by position (different number or types): ({}) and ({})",
            show(&pa),
            show(&pb)
        ));
    }
    let renames: Vec<(String, String)> = pb
        .iter()
        .zip(&pa)
        .filter(|(x, y)| x.1 != y.1)
        .map(|(x, y)| (x.1.clone(), y.1.clone()))
        .collect();
    // Identifiers of the kernel to rename; a new name already used in
    // the kernel for something else would be captured: refuse.
    let tree = crate::parse(b_text, None);
    let mut ids: Vec<Node> = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.end_byte() <= span.0 || n.start_byte() >= span.1 {
            continue;
        }
        if n.kind() == "identifier" {
            ids.push(n);
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
    for id in &ids {
        let t = node_text(b_text, *id);
        if renames.iter().any(|(_, new)| new == t) && !renames.iter().any(|(old, _)| old == t) {
            return Matched::Refused(format!(
                "the parameters cannot be matched by position: `{t}` names something else in `{b}`"
            ));
        }
    }
    ids.sort_by_key(|n| std::cmp::Reverse(n.start_byte()));
    let mut out = b_text.to_string();
    for id in ids {
        let t = node_text(b_text, id);
        if let Some((_, new)) = renames.iter().find(|(old, _)| old == t) {
            out.replace_range(id.start_byte()..id.end_byte(), new);
        }
    }
    let pairs = pa
        .iter()
        .zip(&pb)
        .map(|(x, y)| (x.1.clone(), y.1.clone()))
        .collect();
    Matched::Renamed(out, pairs)
}
