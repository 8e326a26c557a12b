//! A check on the kernels of a unit that the front end cannot make alone:
//! when a local header is missing, the kernels that use names nothing in the
//! unit defines are `not-verified`, naming them.

use crate::frontend::{self, FunctionDef};
use crate::project::{system, unit::Unit};
use crate::report::*;
use crate::syntax::node_text;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use tree_sitter::Node;

/// The kernels of the file (not its headers) that use names nothing in the
/// unit defines while a local header is missing, with those names: known
/// before any query, so they are not verified at all.
pub(crate) fn unresolved_by_kernel(
    unit: &Unit,
    tree: &tree_sitter::Tree,
    cx: &frontend::FileContext,
) -> BTreeMap<String, BTreeSet<String>> {
    if unit.missing.is_empty() {
        return BTreeMap::new();
    }
    names_nothing_defines(unit, tree, cx)
}

/// The kernels of the file that use names nothing in the unit defines (not
/// the unit, not the built-in system model), with those names, whenever a
/// local header is missing or a system header is outside the built-in
/// model (their names are unknown values): what `equiv` asks before
/// comparing a kernel of such a unit (a kernel using none of them is the
/// program its build compiles).
pub(crate) fn names_nothing_defines(
    unit: &Unit,
    tree: &tree_sitter::Tree,
    cx: &frontend::FileContext,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    if unit.missing.is_empty() && unit.unknown_system.is_empty() {
        return out;
    }
    let text = unit.text.as_str();
    let defined = defined_names(text, tree.root_node());
    for k in cx
        .kernels
        .iter()
        .filter(|k| k.node.start_byte() >= unit.prefix_len)
    {
        let unresolved = unresolved_names(text, k, &cx.functions, &defined, unit);
        if !unresolved.is_empty() {
            out.insert(k.name.clone(), unresolved);
        }
    }
    out
}

/// Reports the kernels of `unresolved_by_kernel` as `not-verified`, naming
/// the names and the missing headers.
pub(crate) fn check_kernels(
    unit: &Unit,
    cx: &frontend::FileContext,
    unresolved_by_kernel: &BTreeMap<String, BTreeSet<String>>,
    report: &mut FileReport,
) {
    for k in cx
        .kernels
        .iter()
        .filter(|k| k.node.start_byte() >= unit.prefix_len)
    {
        let Some(kr) = report.kernels.iter_mut().find(|r| r.name == k.name) else {
            continue;
        };
        let mut message = None;
        let mut depends_on_missing = false;
        // (A kernel emptied by the preprocessor is reported by the front end.)
        if let Some(unresolved) = unresolved_by_kernel.get(&k.name) {
            {
                depends_on_missing = true;
                let names: Vec<String> = unresolved.iter().map(|n| format!("`{n}`")).collect();
                let headers: Vec<String> = unit
                    .missing
                    .iter()
                    .map(|m| format!("`{}`", m.name))
                    .collect();
                message = Some(format!(
                    "not verified: `{}` uses {} that nothing in its translation unit defines (the missing {} may)",
                    k.name,
                    names.join(", "),
                    headers.join(", ")
                ));
            }
        }
        if let Some(message) = message {
            if depends_on_missing {
                // Any verdict would rest on values nobody wrote: a race or a
                // proof found with them unknown is not the kernel's.
                kr.status = KernelStatus::NotVerified;
                report.findings.retain(|f| {
                    f.kernel.as_deref() != Some(k.name.as_str())
                        || !matches!(
                            f.kind,
                            FindingKind::DataRace
                                | FindingKind::BarrierDivergence
                                | FindingKind::RedundantBarrier
                                | FindingKind::Unconfirmed
                                | FindingKind::Unknown
                        )
                });
            } else if matches!(kr.status, KernelStatus::Verified | KernelStatus::Unknown) {
                kr.status = KernelStatus::NotVerified;
            }
            report.findings.push(Finding::new(
                FindingKind::NotVerified,
                Some(&k.name),
                kr.span,
                message,
            ));
        }
    }
}

/// Names a declaration, parameter, macro, type, enumerator or template
/// parameter of the unit introduces.
fn defined_names(text: &str, root: Node) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let mut add = |m: Option<Node>| {
            if let Some(m) = m {
                out.insert(node_text(text, m).to_string());
            }
        };
        match n.kind() {
            "preproc_def"
            | "preproc_function_def"
            | "enumerator"
            | "namespace_definition"
            | "alias_declaration"
            | "struct_specifier"
            | "class_specifier"
            | "union_specifier"
            | "enum_specifier"
            | "concept_definition" => add(n.child_by_field_name("name")),
            "preproc_params"
            | "type_parameter_declaration"
            | "variadic_type_parameter_declaration"
            | "optional_type_parameter_declaration" => {
                let mut c = n.walk();
                for ch in n.named_children(&mut c) {
                    if matches!(ch.kind(), "identifier" | "type_identifier") {
                        add(Some(ch));
                    }
                }
                add(n.child_by_field_name("name"));
            }
            "type_definition" => {
                let mut c = n.walk();
                for d in n.children_by_field_name("declarator", &mut c) {
                    if let Some(name) = declared(text, d) {
                        out.insert(name);
                    }
                }
            }
            "namespace_alias_definition" => add(n.child_by_field_name("name")),
            _ => {}
        }
        // Every declarator of `float x0, x1;`, not only the first.
        let mut c = n.walk();
        for d in n.children_by_field_name("declarator", &mut c) {
            if let Some(name) = declared(text, d) {
                out.insert(name);
            }
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    out
}

fn declared(text: &str, d: Node) -> Option<String> {
    if d.kind() == "type_identifier" {
        return Some(node_text(text, d).to_string());
    }
    crate::syntax::declarator_name(text, d).or_else(|| {
        let mut c = d.walk();
        let found = d
            .named_children(&mut c)
            .find(|n| n.kind() == "type_identifier")
            .map(|n| node_text(text, n).to_string());
        found
    })
}

/// Identifiers and type names the kernel (and the unit's functions it
/// calls) uses that nothing defines: not the unit, not the system model.
fn unresolved_names(
    text: &str,
    k: &FunctionDef,
    functions: &std::collections::HashMap<String, FunctionDef>,
    defined: &HashSet<String>,
    unit: &Unit,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut seen = HashSet::new();
    let mut todo = vec![k.node];
    while let Some(root) = todo.pop() {
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            match n.kind() {
                // `cg::sync`, `std::min`: the namespace's names are not ours to judge.
                "qualified_identifier" | "field_identifier" => continue,
                "identifier" | "type_identifier" => {
                    let name = node_text(text, n);
                    if let Some(f) = functions.get(name) {
                        if seen.insert(name.to_string()) {
                            todo.push(f.node);
                        }
                        continue;
                    }
                    if !defined.contains(name)
                        && !unit.system_names.contains(name)
                        && !system::IMPLICIT.contains(&name)
                        && !name.starts_with("__")
                    {
                        out.insert(name.to_string());
                    }
                    continue;
                }
                "field_expression" => {
                    // Only the object, never the member name.
                    if let Some(a) = n.child_by_field_name("argument") {
                        stack.push(a);
                    }
                    continue;
                }
                _ => {}
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
    }
    out
}
