//! Verified quick-fixes. Each candidate edit is applied to the text, the
//! edited kernel is verified again, and the fix is offered only if its
//! finding is gone and no new error appeared.
//!
//! - a race: insert `__syncthreads();` between the two accesses, at a
//!   statement boundary (innermost first, loop bodies included);
//! - a redundant barrier: remove its statement;
//! - a divergent barrier directly inside `if (c) { A; __syncthreads(); B; }`:
//!   split the branch around it (when `A` neither assigns what `c` reads nor
//!   declares what `B` uses).

use crate::cache::QueryCache;
use crate::model::Kernel;
use crate::options::Options;
use crate::report::*;
use crate::syntax::FieldExt;
use crate::verify::engine::RaceHit;
use std::collections::HashSet;
use tree_sitter::Node;

const MAX_CANDIDATES: usize = 6;

pub fn point_at(text: &str, offset: usize) -> Point {
    let mut off = offset.min(text.len());
    while off > 0 && !text.is_char_boundary(off) {
        off -= 1;
    }
    let before = &text[..off];
    let line = before.matches('\n').count() as u32;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    Point {
        line,
        column: (off - line_start) as u32,
        offset: off as u32,
    }
}

fn span_of(text: &str, start: usize, end: usize) -> Span {
    Span {
        start: point_at(text, start),
        end: point_at(text, end),
    }
}

fn line_indent(text: &str, offset: usize) -> (usize, String) {
    let line_start = text[..offset.min(text.len())]
        .rfind('\n')
        .map(|i| i + 1)
        .unwrap_or(0);
    let indent: String = text[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    (line_start, indent)
}

/// What a fix is judged by: the kernel's racing pairs (by the source text
/// of the two accesses, stable across edits) and its counts of divergent
/// barriers and undecided findings.
struct Summary {
    races: Vec<(String, String)>,
    divergent: usize,
    unknown: usize,
}

impl Summary {
    fn new(kernel: &Kernel, findings: &[Finding], races: &[RaceHit]) -> Summary {
        let count = |k: FindingKind| findings.iter().filter(|f| f.kind == k).count();
        Summary {
            races: races.iter().filter_map(|r| race_key(kernel, r)).collect(),
            divergent: count(FindingKind::BarrierDivergence),
            unknown: count(FindingKind::Unknown),
        }
    }
}

/// A race as its two accesses' source texts, in order.
fn race_key(kernel: &Kernel, r: &RaceHit) -> Option<(String, String)> {
    let accesses = kernel.accesses();
    let text = |id: usize| accesses.iter().find(|a| a.id == id).map(|a| a.text.clone());
    let (a, b) = (text(r.first)?, text(r.second)?);
    Some(if a <= b { (a, b) } else { (b, a) })
}

struct Checker<'a> {
    text: &'a str,
    kernel: &'a Kernel,
    options: Options,
    cache: &'a dyn QueryCache,
}

impl Checker<'_> {
    /// Verifies the kernel after `edits`.
    fn after(&self, edits: &[TextEdit]) -> Option<Summary> {
        let mut new_text = self.text.to_string();
        let mut sorted: Vec<&TextEdit> = edits.iter().collect();
        sorted.sort_by_key(|e| std::cmp::Reverse(e.span.start.offset));
        for e in sorted {
            let (s, t) = (e.span.start.offset as usize, e.span.end.offset as usize);
            if s > t
                || t > new_text.len()
                || !new_text.is_char_boundary(s)
                || !new_text.is_char_boundary(t)
            {
                return None;
            }
            new_text.replace_range(s..t, &e.new_text);
        }
        let tree = crate::syntax::parse(&new_text, None);
        if tree.root_node().has_error() && !self.text_has_errors() {
            return None;
        }
        let kernels = crate::frontend::lower_file(&new_text, &tree, &self.options);
        let k = kernels.iter().find(|k| k.name == self.kernel.name)?;
        let (findings, _, races, _) = crate::verify::verify_one(k, &self.options, self.cache, None);
        Some(Summary::new(k, &findings, &races))
    }

    fn text_has_errors(&self) -> bool {
        crate::syntax::parse(self.text, None)
            .root_node()
            .has_error()
    }
}

pub fn add_fixes(
    text: &str,
    tree: &tree_sitter::Tree,
    kernel: &Kernel,
    findings: &mut [Finding],
    races: &[RaceHit],
    options: &Options,
    cache: &dyn QueryCache,
) {
    let checker = Checker {
        text,
        kernel,
        options: Options {
            compute_fixes: false,
            check_redundant: false,
            ..options.clone()
        },
        cache,
    };
    let before = Summary::new(kernel, findings, races);
    for f in findings.iter_mut() {
        let fix = match f.kind {
            FindingKind::DataRace => {
                let target = races
                    .iter()
                    .find(|r| same_race(kernel, r, f))
                    .and_then(|r| race_key(kernel, r));
                target.and_then(|t| race_fix(&checker, tree, f, &before, &t))
            }
            FindingKind::RedundantBarrier => removal_fix(&checker, f, &before),
            FindingKind::BarrierDivergence => hoist_fix(&checker, tree, f, &before),
            _ => None,
        };
        if let Some(fix) = fix {
            f.fixes.push(fix);
        }
    }
}

/// Whether the race finding `f` reports `r` (its two accesses' spans).
fn same_race(kernel: &Kernel, r: &RaceHit, f: &Finding) -> bool {
    let accesses = kernel.accesses();
    let span = |id: usize| accesses.iter().find(|a| a.id == id).map(|a| a.span);
    let (Some(p), Some(q)) = (span(r.first), span(r.second)) else {
        return false;
    };
    let other = f.related.first().map(|x| x.span);
    (f.span == p && other == Some(q)) || (f.span == q && other == Some(p))
}

/// The fix is good if the race set only shrank (losing `target`, if any)
/// and neither divergence nor undecided findings grew.
fn acceptable(after: &Summary, before: &Summary, target: Option<&(String, String)>) -> bool {
    let not_new = after.races.iter().all(|r| before.races.contains(r));
    let gone = target.map(|t| !after.races.contains(t)).unwrap_or(true);
    not_new && gone && after.divergent <= before.divergent && after.unknown <= before.unknown
}

fn node_at<'t>(tree: &'t tree_sitter::Tree, span: &Span) -> Option<Node<'t>> {
    tree.root_node()
        .descendant_for_byte_range(span.start.offset as usize, span.end.offset as usize)
}

/// Statements (children of a block) enclosing `node`, innermost first.
fn enclosing_statements(node: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut n = node;
    while let Some(p) = n.parent() {
        if p.kind() == "compound_statement" && n.is_named() && n.kind() != "comment" {
            out.push(n);
        }
        if p.kind() == "function_definition" {
            break;
        }
        n = p;
    }
    out
}

fn race_fix(
    checker: &Checker,
    tree: &tree_sitter::Tree,
    f: &Finding,
    before: &Summary,
    target: &(String, String),
) -> Option<Fix> {
    let text = checker.text;
    let other = f.related.first()?;
    let (first, second) = if f.span.start.offset <= other.span.start.offset {
        (f.span, other.span)
    } else {
        (other.span, f.span)
    };
    let a = node_at(tree, &first)?;
    let b = node_at(tree, &second)?;
    let mut candidates: Vec<usize> = Vec::new();
    let push = |pos: usize, c: &mut Vec<usize>| {
        if !c.contains(&pos) {
            c.push(pos);
        }
    };
    // Between the two accesses: before a statement holding the later one,
    // or after a statement holding the earlier one.
    for s in enclosing_statements(b) {
        if s.start_byte() >= a.end_byte() {
            push(s.start_byte(), &mut candidates);
        }
    }
    for s in enclosing_statements(a) {
        if s.end_byte() <= b.start_byte() {
            push(s.end_byte(), &mut candidates);
        }
    }
    // Across loop iterations: after the later access, before the earlier one.
    for s in enclosing_statements(b) {
        push(s.end_byte(), &mut candidates);
    }
    for s in enclosing_statements(a) {
        push(s.start_byte(), &mut candidates);
    }
    for pos in candidates.into_iter().take(MAX_CANDIDATES) {
        let (line_start, indent) = line_indent(text, pos);
        let at_line_start = text[line_start..pos].trim().is_empty();
        let (at, new_text) = if at_line_start {
            (line_start, format!("{indent}__syncthreads();\n"))
        } else {
            (pos, format!("\n{indent}__syncthreads();"))
        };
        let edit = TextEdit {
            span: span_of(text, at, at),
            new_text,
        };
        let after = checker.after(std::slice::from_ref(&edit))?;
        if acceptable(&after, before, Some(target)) {
            let line = point_at(text, at).line + 1;
            return Some(Fix {
                title: format!(
                    "Insert `__syncthreads()` at line {line} to separate the racing accesses"
                ),
                edits: vec![edit],
            });
        }
    }
    None
}

fn removal_fix(checker: &Checker, f: &Finding, before: &Summary) -> Option<Fix> {
    let text = checker.text;
    let tree = crate::syntax::parse(text, None);
    let node = node_at(&tree, &f.span)?;
    let stmt = enclosing_statements(node).into_iter().next()?;
    if stmt.kind() != "expression_statement" {
        return None;
    }
    let (line_start, _) = line_indent(text, stmt.start_byte());
    let line_end = text[stmt.end_byte()..]
        .find('\n')
        .map(|i| stmt.end_byte() + i + 1)
        .unwrap_or(text.len());
    let whole_line = text[line_start..stmt.start_byte()].trim().is_empty()
        && text[stmt.end_byte()..line_end].trim().is_empty();
    let (s, e) = if whole_line {
        (line_start, line_end)
    } else {
        (stmt.start_byte(), stmt.end_byte())
    };
    let edit = TextEdit {
        span: span_of(text, s, e),
        new_text: String::new(),
    };
    let after = checker.after(std::slice::from_ref(&edit))?;
    acceptable(&after, before, None).then(|| Fix {
        title: "Remove redundant `__syncthreads()`".into(),
        edits: vec![edit],
    })
}

fn identifiers(node: Node, text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" {
            out.insert(text[n.byte_range()].to_string());
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    out
}

fn root_variable(n: Node) -> Option<Node> {
    match n.kind() {
        "identifier" => Some(n),
        "parenthesized_expression" => n.named_child(0).and_then(root_variable),
        "field_expression" => n.field("argument").and_then(root_variable),
        _ => None,
    }
}

fn assigned_or_declared(nodes: &[Node], text: &str) -> (HashSet<String>, HashSet<String>) {
    let mut assigned = HashSet::new();
    let mut declared = HashSet::new();
    for &root in nodes {
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            match n.kind() {
                // Only variables change: `s[i] = v` writes memory, not `i`.
                "assignment_expression" => {
                    if let Some(l) = n.field("left").and_then(root_variable) {
                        assigned.insert(text[l.byte_range()].to_string());
                    }
                }
                "update_expression" => {
                    if let Some(a) = n.field("argument").and_then(root_variable) {
                        assigned.insert(text[a.byte_range()].to_string());
                    }
                }
                "declaration" => {
                    let mut c = n.walk();
                    for d in n.children_by_field_name("declarator", &mut c) {
                        if let Some(name) = crate::syntax::declarator_name(text, d) {
                            declared.insert(name);
                        }
                    }
                }
                _ => {}
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
    }
    (assigned, declared)
}

fn hoist_fix(
    checker: &Checker,
    tree: &tree_sitter::Tree,
    f: &Finding,
    before: &Summary,
) -> Option<Fix> {
    let text = checker.text;
    let node = node_at(tree, &f.span)?;
    let stmt = enclosing_statements(node).into_iter().next()?;
    let block = stmt.parent()?;
    let iff = block.parent()?;
    if iff.kind() != "if_statement"
        || iff.field("alternative").is_some()
        || iff.field("consequence") != Some(block)
    {
        return None;
    }
    let cond = iff.field("condition")?;
    let mut c = block.walk();
    let children: Vec<Node> = block.named_children(&mut c).collect();
    let idx = children.iter().position(|n| *n == stmt)?;
    let (pre, post) = (&children[..idx], &children[idx + 1..]);
    let (assigned, declared) = assigned_or_declared(pre, text);
    let cond_ids = identifiers(cond, text);
    if cond_ids.iter().any(|i| assigned.contains(i)) {
        return None;
    }
    let post_ids: HashSet<String> = post.iter().flat_map(|n| identifiers(*n, text)).collect();
    if declared.iter().any(|d| post_ids.contains(d)) {
        return None;
    }
    let (_, indent) = line_indent(text, iff.start_byte());
    let header = &text[iff.start_byte()..block.start_byte()];
    let inner_open = block.start_byte() + 1;
    let inner_close = block.end_byte().saturating_sub(1);
    let pre_text = &text[inner_open..stmt.start_byte()];
    let after_stmt = text[stmt.end_byte()..inner_close].to_string();
    let mut out = String::new();
    if !pre.is_empty() {
        out.push_str(&format!(
            "{header}{{{}\n{indent}}}\n{indent}",
            pre_text.trim_end()
        ));
    }
    out.push_str("__syncthreads();");
    if !post.is_empty() {
        out.push_str(&format!("\n{indent}{header}{{{after_stmt}}}"));
    }
    let edit = TextEdit {
        span: span_of(text, iff.start_byte(), iff.end_byte()),
        new_text: out,
    };
    let after = checker.after(std::slice::from_ref(&edit))?;
    (acceptable(&after, before, None) && after.divergent < before.divergent).then(|| Fix {
        title: "Hoist `__syncthreads()` out of the thread-dependent branch".into(),
        edits: vec![edit],
    })
}
