//! Quick-fixes, checked on the kernel MODEL: each candidate is applied to
//! the model (a `Barrier` statement inserted at the insertion point, a
//! barrier removed, a barrier hoisted out of its branch) and the model is
//! verified again; the text is never edited and re-parsed for it. A fix
//! whose check came back complete, with its finding gone and no new error,
//! is `verified` (the server offers only such a fix as preferred).
//!
//! - a race finding (one group of racing pairs): insert `__syncthreads();`
//!   before the first later access of the group (innermost statement first,
//!   then enclosing ones), with the indentation of that line; when both
//!   accesses lie in one loop, also at the end of its body (before the next
//!   iteration's writes) and at its start, tried first when a barrier
//!   already separates the two accesses within an iteration (then they can
//!   only race across iterations: the classic missing barrier of a tile
//!   loop). Every candidate's verification is kept for the kernel's other
//!   findings, so several races one missing barrier causes share one fix
//!   and one re-verification;
//!   and, for a race that can happen only for some values of the kernel's
//!   parameters, the condition it needs (`Finding::race_condition`) and,
//!   ranked after the barrier, a fix assuming the opposite at the kernel's
//!   start (`assumption`: a `__requires` that nvcc compiles), verified by
//!   verifying the model with that assumption added; before that, for a
//!   race through the values of an input array, the property the array
//!   must have (`__sorted(key)`, `__distinct(slot)`: `input_conditions`)
//!   and the fix writing it, verified the same way;
//! - a redundant barrier: remove its statement;
//! - a divergent barrier directly inside `if (c) { A; __syncthreads(); B; }`:
//!   split the branch around it (when `A` neither assigns what `c` reads nor
//!   declares what `B` uses).

use crate::cache::QueryCache;
use crate::model::{Barrier, BarrierKind, Kernel, Stmt};
use crate::options::Options;
use crate::report::*;
use crate::syntax::FieldExt;
use crate::verify::races::RaceHit;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tree_sitter::Node;

const MAX_CANDIDATES: usize = 6;
/// Time for checking the candidates of one finding: past it the remaining
/// candidates are not checked (a candidate then is offered unverified).
const FIX_BUDGET: Duration = Duration::from_millis(3000);

/// The span of bytes `start..end` of `text` (a quick-fix edit), through the
/// core's one line-start table.
fn span_of(text: &str, start: usize, end: usize) -> Span {
    let lines = LineStarts::new(text);
    Span {
        start: lines.point(text, start),
        end: lines.point(text, end),
    }
}

/// What a fix is judged by: the kernel's racing pairs (access ids: the
/// fixed model keeps them), its divergent barriers and undecided findings,
/// and whether the check was complete.
#[derive(Clone)]
struct Summary {
    races: Vec<(usize, usize)>,
    divergent: usize,
    unknown: usize,
    complete: bool,
}

impl Summary {
    fn new(findings: &[Finding], races: &[RaceHit], complete: bool) -> Summary {
        let count = |k: FindingKind| findings.iter().filter(|f| f.kind == k).count();
        Summary {
            races: races.iter().map(race_key).collect(),
            divergent: count(FindingKind::BarrierDivergence),
            unknown: count(FindingKind::Unknown),
            complete,
        }
    }
}

fn race_key(r: &RaceHit) -> (usize, usize) {
    (r.first.min(r.second), r.first.max(r.second))
}

/// What checking a candidate said.
enum Verdict {
    Good,
    Bad,
    /// The check did not finish (budget, timeout, cancelled).
    Undecided,
}

struct Checker<'a> {
    text: &'a str,
    tree: &'a tree_sitter::Tree,
    kernel: &'a Kernel,
    options: Options,
    cache: &'a dyn QueryCache,
    cancel: Option<&'a AtomicBool>,
    deadline: Instant,
    /// The verification of each barrier insertion already tried for one of
    /// the kernel's findings (by the byte offset inserted at): the model is
    /// the same, so another finding's judgement reuses it.
    tried: &'a RefCell<HashMap<u32, Option<Summary>>>,
}

impl Checker<'_> {
    fn stopped(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) || Instant::now() > self.deadline
    }

    /// Verifies `model` (the kernel with a fix applied).
    fn check(&self, model: &Kernel) -> Option<Summary> {
        if self.stopped() {
            return None;
        }
        let (findings, _, races, stats) =
            crate::verify::verify_one(model, &self.options, self.cache, self.cancel);
        let complete = stats.kernels_over_budget == 0 && !self.stopped();
        Some(Summary::new(&findings, &races, complete))
    }

    /// The fix is good if the race set only shrank (losing every pair of
    /// `target`) and neither divergence nor undecided findings grew.
    fn judge(&self, model: &Kernel, before: &Summary, target: &[(usize, usize)]) -> Verdict {
        match self.check(model) {
            Some(after) => judged(&after, before, target),
            None => Verdict::Undecided,
        }
    }

    /// [`Checker::judge`] of the kernel with a barrier inserted at byte
    /// `pos` (`model`), verified once for all of the kernel's findings.
    fn judge_insertion(
        &self,
        pos: u32,
        model: &Kernel,
        before: &Summary,
        target: &[(usize, usize)],
    ) -> Verdict {
        let known = self.tried.borrow().get(&pos).cloned();
        let after = match known {
            Some(after) => after,
            None => {
                let after = self.check(model);
                // An interrupted check may finish next time: not kept.
                if after.as_ref().is_some_and(|a| a.complete) {
                    self.tried.borrow_mut().insert(pos, after.clone());
                }
                after
            }
        };
        match after {
            Some(after) => judged(&after, before, target),
            None => Verdict::Undecided,
        }
    }
}

fn judged(after: &Summary, before: &Summary, target: &[(usize, usize)]) -> Verdict {
    let not_new = after.races.iter().all(|r| before.races.contains(r));
    let gone = target.iter().all(|t| !after.races.contains(t));
    if not_new && gone && after.divergent <= before.divergent && after.unknown <= before.unknown {
        Verdict::Good
    } else if !after.complete || after.unknown > before.unknown {
        Verdict::Undecided
    } else {
        Verdict::Bad
    }
}

/// Computes the quick-fixes of `findings` (of `kernel`, whose verification
/// gave `races`) that are `wanted`, within [`FIX_BUDGET`] per finding, and
/// the races' conditions on the parameters (with the assumption fixes);
/// without `code_fixes`, only those (a hover asks for the condition alone).
/// Stops when `cancel` is set.
#[allow(clippy::too_many_arguments)]
pub(crate) fn add_fixes(
    text: &str,
    tree: &tree_sitter::Tree,
    kernel: &Kernel,
    findings: &mut [Finding],
    races: &[RaceHit],
    options: &Options,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
    wanted: &dyn Fn(&Finding) -> bool,
    code_fixes: bool,
) {
    let before = Summary::new(findings, races, true);
    let tried = RefCell::new(HashMap::new());
    let assumed = RefCell::new(HashMap::new());
    for f in findings.iter_mut() {
        if !wanted(f) {
            continue;
        }
        let checker = Checker {
            text,
            tree,
            kernel,
            options: Options {
                compute_fixes: false,
                check_redundant: false,
                ..options.clone()
            },
            cache,
            cancel,
            deadline: Instant::now() + FIX_BUDGET,
            tried: &tried,
        };
        if checker.stopped() {
            return;
        }
        let fix = match f.kind {
            _ if !code_fixes => None,
            FindingKind::DataRace => race_fix(&checker, f, races, &before),
            FindingKind::RedundantBarrier => removal_fix(&checker, f, &before),
            FindingKind::BarrierDivergence => hoist_fix(&checker, f, &before),
            _ => None,
        };
        if let Some(fix) = fix {
            f.fixes.push(fix);
        }
        if f.kind == FindingKind::DataRace {
            // Its own budget, the kernel's own (one verification, unlike
            // the barrier's several candidates): the barrier's search may
            // have spent the first.
            let budget = Duration::from_millis(options.kernel_budget_ms as u64).max(FIX_BUDGET);
            let checker = Checker {
                deadline: Instant::now() + budget,
                ..checker
            };
            let (condition, fix) = condition_and_fix(&checker, f, races, &before, &assumed);
            f.race_condition = condition;
            // After a barrier fix: a barrier removes the race, an
            // assumption only rules out the launches it happens under.
            f.fixes.extend(fix);
        }
    }
}

/// Whether the kernel's model reads a scalar parameter anywhere (an
/// access's index, guard or written value, a statement's guard).
fn mentions_a_parameter(kernel: &Kernel) -> bool {
    let param = &mut |v: &crate::model::Var| matches!(v.kind, crate::model::VarKind::Param { .. });
    kernel.accesses().iter().any(|a| {
        a.index.mentions(param)
            || a.guard.mentions(param)
            || a.value.as_ref().is_some_and(|v| v.mentions(param))
    }) || kernel.stmt_guards.iter().any(|(_, g)| g.mentions(param))
}

/// The condition on the kernel's parameters under which the race finding
/// `f` can happen, and the quick-fix assuming its negation at the
/// kernel's start. The thresholds are searched on the racing pairs'
/// queries (`verify::param_bounds`); the kernel is then verified again
/// with the negation assumed, and the condition is stated only when that
/// check came back complete without the finding's pairs, nothing new and
/// nothing undecided: every race query of those pairs (every relation,
/// every interval) is unsat outside it. `assumed` keeps each assumption's
/// verification for the kernel's other findings.
fn condition_and_fix(
    checker: &Checker,
    f: &Finding,
    races: &[RaceHit],
    before: &Summary,
    assumed: &RefCell<HashMap<String, Option<Summary>>>,
) -> (Option<RaceCondition>, Option<Fix>) {
    use crate::verify::param_bounds::RaceBounds;
    let target = target_pairs(checker.kernel, f, races);
    let hits: Vec<&RaceHit> = races
        .iter()
        .filter(|r| target.contains(&race_key(r)))
        .collect();
    if target.is_empty() || checker.stopped() {
        return (None, None);
    }
    // A race through the values of an input array (a scatter through a
    // scan) is told by what the array must hold before any threshold on
    // the parameters, which would only rule out launch sizes.
    if let Some(found) = input_condition_and_fix(checker, f, &target, before, assumed) {
        return found;
    }
    // The search's own safety net; the verification below has the rest.
    let bounds = match crate::verify::race_bounds(
        checker.kernel,
        &checker.options,
        checker.cache,
        checker.cancel,
        &hits,
        Instant::now() + FIX_BUDGET,
    ) {
        // Said only of a kernel whose model has parameters to speak of.
        RaceBounds::EveryValue if mentions_a_parameter(checker.kernel) => {
            return (Some(RaceCondition::EveryValue), None)
        }
        RaceBounds::EveryValue => return (None, None),
        RaceBounds::Unbounded => return (None, None),
        RaceBounds::Within(b) => b,
    };
    let assumption = super::param_conditions::assumption_text(&bounds);
    let known = assumed.borrow().get(&assumption).cloned();
    let after = match known {
        Some(after) => after,
        None => {
            let mut model = checker.kernel.clone();
            model
                .assumptions
                .push(super::param_conditions::assumption_expr(&bounds));
            let after = checker.check(&model);
            if after.as_ref().is_some_and(|a| a.complete) {
                assumed
                    .borrow_mut()
                    .insert(assumption.clone(), after.clone());
            }
            after
        }
    };
    let proved = after
        .as_ref()
        .is_some_and(|a| a.complete && matches!(judged(a, before, &target), Verdict::Good));
    if !proved {
        return (None, None);
    }
    let condition = RaceCondition::Only {
        condition: super::param_conditions::condition_text(&bounds),
        assumption: assumption.clone(),
    };
    let fix = f
        .kernel
        .as_deref()
        .and_then(|k| super::assumption::assumption_fix(checker.text, k, &assumption, true));
    (Some(condition), fix)
}

/// The condition on the contents of an input array under which race `f`
/// can happen (`races unless `scan` holds distinct values...`) and the
/// quick-fix stating the opposite (`__requires(__distinct(scan))`): the
/// first of the stated orders worth trying (`input_conditions`) with which
/// the kernel verifies again complete, without the finding's pairs,
/// nothing new and nothing undecided. `None` when none does.
fn input_condition_and_fix(
    checker: &Checker,
    f: &Finding,
    target: &[(usize, usize)],
    before: &Summary,
    assumed: &RefCell<HashMap<String, Option<Summary>>>,
) -> Option<(Option<RaceCondition>, Option<Fix>)> {
    let ids: Vec<usize> = target.iter().flat_map(|(a, b)| [*a, *b]).collect();
    for order in super::input_conditions::candidates(checker.kernel, &ids) {
        if checker.stopped() {
            return None;
        }
        let assumption = super::input_conditions::assumption_text(checker.kernel, &order);
        let known = assumed.borrow().get(&assumption).cloned();
        let after = match known {
            Some(after) => after,
            None => {
                let mut model = checker.kernel.clone();
                model.input_orders.push(order.clone());
                let after = checker.check(&model);
                if after.as_ref().is_some_and(|a| a.complete) {
                    assumed
                        .borrow_mut()
                        .insert(assumption.clone(), after.clone());
                }
                after
            }
        };
        let proved = after
            .as_ref()
            .is_some_and(|a| a.complete && matches!(judged(a, before, target), Verdict::Good));
        if proved {
            let condition = RaceCondition::UnlessInput {
                property: super::input_conditions::property_text(checker.kernel, &order),
                assumption: assumption.clone(),
            };
            let fix = f.kernel.as_deref().and_then(|k| {
                super::assumption::assumption_fix(checker.text, k, &assumption, true)
            });
            return Some((Some(condition), fix));
        }
    }
    None
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

/// Where a statement starts in the model: its first leaf's offset.
fn stmt_start(s: &Stmt) -> Option<u32> {
    match s {
        Stmt::Access(a) => Some(a.span.start.offset),
        Stmt::Barrier(b) => Some(b.stmt_span.start.offset),
        Stmt::Loop(l) => Some(l.span.start.offset),
        Stmt::If(t, e) => t.iter().chain(e).filter_map(stmt_start).min(),
        Stmt::LoopExit(_) => None,
    }
}

fn stmt_end(s: &Stmt) -> Option<u32> {
    match s {
        Stmt::Access(a) => Some(a.span.end.offset),
        Stmt::Barrier(b) => Some(b.stmt_span.end.offset),
        Stmt::Loop(l) => Some(l.span.end.offset),
        Stmt::If(t, e) => t.iter().chain(e).filter_map(stmt_end).max(),
        Stmt::LoopExit(_) => None,
    }
}

/// A construct of the source that encloses an insertion point, outermost
/// first: the model statement list to insert into is found by following it.
enum Enclosing {
    Loop {
        start: u32,
    },
    If {
        start: u32,
        end: u32,
        then: (u32, u32),
        in_then: bool,
    },
}

/// The constructs between the kernel's body and `stmt`, outermost first;
/// `None` for a place the model has no list for (a `switch` case...).
fn enclosing_constructs(stmt: Node, pos: u32) -> Option<Vec<Enclosing>> {
    let mut out = Vec::new();
    let mut n = stmt.parent()?;
    loop {
        let p = n.parent()?;
        match n.kind() {
            "compound_statement" | "else_clause" => {}
            "for_statement" | "while_statement" | "do_statement" => out.push(Enclosing::Loop {
                start: n.start_byte() as u32,
            }),
            "if_statement" => {
                let then = n.field("consequence")?;
                let then = (then.start_byte() as u32, then.end_byte() as u32);
                out.push(Enclosing::If {
                    start: n.start_byte() as u32,
                    end: n.end_byte() as u32,
                    then,
                    in_then: then.0 <= pos && pos <= then.1,
                })
            }
            _ => return None,
        }
        if p.kind() == "function_definition" {
            break;
        }
        n = p;
    }
    out.reverse();
    Some(out)
}

/// Inserts `barrier` into the statement list that `path` leads to, before
/// the first statement starting at or after `pos`. An `if` without barriers
/// was flattened by the front end: its statements are gathered into an
/// `If` again. Returns the ids of the loops entered, or `None` when the
/// model has no such place.
fn insert_at(
    list: &mut Vec<Stmt>,
    path: &[Enclosing],
    pos: u32,
    barrier: &mut Barrier,
    first: usize,
) -> Option<()> {
    let Some((head, rest)) = path.split_first() else {
        let idx = (first..list.len())
            .find(|&i| stmt_start(&list[i]).is_some_and(|s| s >= pos))
            .unwrap_or(list.len());
        list.insert(idx, Stmt::Barrier(barrier.clone()));
        return Some(());
    };
    match head {
        Enclosing::Loop { start } => {
            let l = list.iter_mut().find_map(|s| match s {
                Stmt::Loop(l) if l.span.start.offset == *start => Some(l),
                _ => None,
            })?;
            barrier.loops.push(l.id);
            let cond_len = l.cond_len;
            insert_at(&mut l.body, rest, pos, barrier, cond_len)
        }
        Enclosing::If {
            start,
            end,
            then,
            in_then,
        } => {
            let inside = |s: &Stmt| {
                stmt_start(s).is_some_and(|x| *start <= x && x < *end)
                    && stmt_end(s).is_some_and(|x| x <= *end)
            };
            let existing = list
                .iter()
                .position(|s| matches!(s, Stmt::If(..)) && inside(s));
            let at = match existing {
                Some(i) => i,
                None => {
                    // Gather the flattened branch: condition reads stay before.
                    let idx: Vec<usize> = (0..list.len()).filter(|&i| inside(&list[i])).collect();
                    let lo = *idx.first().unwrap_or(&list.len());
                    let hi = idx.last().map(|i| i + 1).unwrap_or(lo);
                    if idx.len() != hi - lo {
                        return None;
                    }
                    let taken: Vec<Stmt> = list.drain(lo..hi).collect();
                    let (mut cond, mut t, mut e) = (Vec::new(), Vec::new(), Vec::new());
                    for s in taken {
                        let x = stmt_start(&s).unwrap_or(0);
                        if x < then.0 {
                            cond.push(s);
                        } else if x <= then.1 {
                            t.push(s);
                        } else {
                            e.push(s);
                        }
                    }
                    let n = cond.len();
                    cond.push(Stmt::If(t, e));
                    for (k, s) in cond.into_iter().enumerate() {
                        list.insert(lo + k, s);
                    }
                    lo + n
                }
            };
            let Stmt::If(t, e) = &mut list[at] else {
                return None;
            };
            insert_at(if *in_then { t } else { e }, rest, pos, barrier, 0)
        }
    }
}

/// The kernel with a `__syncthreads()` inserted at byte `pos`, just inside
/// or around `stmt` (`before`: at its start, else at its end).
fn with_barrier(kernel: &Kernel, stmt: Node, before: bool) -> Option<Kernel> {
    let pos = if before {
        stmt.start_byte()
    } else {
        stmt.end_byte()
    } as u32;
    let def = kernel.def_span;
    if pos <= def.start.offset || pos >= def.end.offset {
        return None;
    }
    let mut guards = kernel.stmt_guards.iter().filter(|(o, _)| *o == pos);
    let guard = if before {
        guards.next()
    } else {
        guards.next_back()
    }?
    .1
    .clone();
    let path = enclosing_constructs(stmt, pos)?;
    let span = Span {
        start: Point {
            offset: pos,
            ..Point::default()
        },
        end: Point {
            offset: pos,
            ..Point::default()
        },
    };
    let mut barrier = Barrier {
        id: kernel
            .barriers()
            .iter()
            .map(|b| b.id + 1)
            .max()
            .unwrap_or(0),
        kind: BarrierKind::Block,
        guard,
        span,
        stmt_span: span,
        has_value: false,
        partial_mask: false,
        conditions: Vec::new(),
        loops: Vec::new(),
    };
    let mut model = kernel.clone();
    insert_at(&mut model.body, &path, pos, &mut barrier, 0)?;
    Some(model)
}

fn line_start_and_indent(text: &str, offset: usize) -> (usize, String) {
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

/// The edit inserting `__syncthreads();` before or after `stmt`, on a line
/// of its own with `stmt`'s indentation.
fn insertion_edit(text: &str, stmt: Node, before: bool) -> TextEdit {
    let (line_start, indent) = line_start_and_indent(text, stmt.start_byte());
    let own_line = text[line_start..stmt.start_byte()].trim().is_empty();
    let (at, new_text) = if before && own_line {
        (line_start, format!("{indent}__syncthreads();\n"))
    } else if before {
        (stmt.start_byte(), "__syncthreads(); ".to_string())
    } else {
        (stmt.end_byte(), format!("\n{indent}__syncthreads();"))
    };
    TextEdit {
        span: span_of(text, at, at),
        new_text,
    }
}

/// The race finding's pairs as access ids (matched by span).
fn target_pairs(kernel: &Kernel, f: &Finding, races: &[RaceHit]) -> Vec<(usize, usize)> {
    let accesses = kernel.accesses();
    let span = |id: usize| accesses.iter().find(|a| a.id == id).map(|a| a.span);
    races
        .iter()
        .filter(|r| {
            let (Some(p), Some(q)) = (span(r.first), span(r.second)) else {
                return false;
            };
            f.pairs
                .iter()
                .any(|x| (x.first == p && x.second == q) || (x.first == q && x.second == p))
        })
        .map(race_key)
        .collect()
}

fn race_fix(checker: &Checker, f: &Finding, races: &[RaceHit], before: &Summary) -> Option<Fix> {
    let text = checker.text;
    let target = target_pairs(checker.kernel, f, races);
    if target.is_empty() || f.pairs.is_empty() {
        return None;
    }
    let mut undecided = None;
    for (stmt, before_stmt) in race_candidates(checker, f).into_iter().take(MAX_CANDIDATES) {
        let Some(model) = with_barrier(checker.kernel, stmt, before_stmt) else {
            continue;
        };
        let edit = insertion_edit(text, stmt, before_stmt);
        // The line the barrier ends up on (after a statement: a new line).
        let line = edit.span.start.line + if before_stmt { 1 } else { 2 };
        let fix = |verified: bool| Fix {
            title: format!(
                "Insert `__syncthreads()` at line {line} to separate the racing accesses{}",
                if verified { "" } else { " (not re-checked)" }
            ),
            edits: vec![edit.clone()],
            verified,
            precondition: false,
        };
        match checker.judge_insertion(insertion_offset(stmt, before_stmt), &model, before, &target)
        {
            Verdict::Good => return Some(fix(true)),
            Verdict::Undecided if undecided.is_none() => undecided = Some(fix(false)),
            _ => {}
        }
        if checker.stopped() {
            break;
        }
    }
    undecided
}

/// Where a barrier inserted before or after `stmt` goes.
fn insertion_offset(stmt: Node, before: bool) -> u32 {
    if before {
        stmt.start_byte() as u32
    } else {
        stmt.end_byte() as u32
    }
}

/// The places a barrier could separate the race finding's pairs, the
/// likeliest first: (statement, insert before it).
fn race_candidates<'a>(checker: &Checker<'a>, f: &Finding) -> Vec<(Node<'a>, bool)> {
    let tree = checker.tree;
    // Between the accesses: after the last earlier access, before the
    // first later one.
    let mut between = Vec::new();
    let Some(earliest_late) = f
        .pairs
        .iter()
        .map(|p| p.second)
        .min_by_key(|s| s.start.offset)
    else {
        return between;
    };
    let latest_early = f.pairs.iter().map(|p| p.first.end.offset).max();
    let latest_early = latest_early.unwrap_or(0);
    if let Some(late) = node_at(tree, &earliest_late) {
        for s in enclosing_statements(late) {
            if s.start_byte() as u32 >= latest_early {
                between.push((s, true));
            }
        }
    }
    let first_early = f
        .pairs
        .iter()
        .map(|p| p.first)
        .min_by_key(|s| s.start.offset);
    if let Some(early) = first_early.and_then(|s| node_at(tree, &s)) {
        for s in enclosing_statements(early) {
            if s.end_byte() as u32 <= earliest_late.start.offset {
                between.push((s, false));
            }
        }
    }
    // Across iterations: the end of the body of a loop holding every
    // access (before the next iteration's first statement), then its start.
    let lo = f
        .pairs
        .iter()
        .map(|p| p.first.start.offset.min(p.second.start.offset))
        .min();
    let hi = f
        .pairs
        .iter()
        .map(|p| p.first.end.offset.max(p.second.end.offset))
        .max();
    let (lo, hi) = (lo.unwrap_or(0), hi.unwrap_or(0));
    let mut across = Vec::new();
    let mut across_first = false;
    let mut n = node_at(tree, &f.pairs[0].first);
    while let Some(p) = n.and_then(|x| x.parent()) {
        if p.kind() == "function_definition" {
            break;
        }
        n = Some(p);
        let is_loop = matches!(
            p.kind(),
            "for_statement" | "while_statement" | "do_statement"
        );
        if !is_loop || lo < p.start_byte() as u32 || hi > p.end_byte() as u32 {
            continue;
        }
        let Some(body) = p.field("body").filter(|b| b.kind() == "compound_statement") else {
            continue;
        };
        let mut c = body.walk();
        let stmts: Vec<Node> = body
            .named_children(&mut c)
            .filter(|s| s.kind() != "comment")
            .collect();
        let (Some(first), Some(last)) = (stmts.first(), stmts.last()) else {
            continue;
        };
        if across.is_empty() {
            across_first = separated_within_iteration(checker.kernel, f, body);
        }
        across.push((*last, false));
        across.push((*first, true));
    }
    let (mut out, rest) = if across_first {
        (across, between)
    } else {
        (between, across)
    };
    out.extend(rest);
    let mut seen = HashSet::new();
    out.retain(|(s, before)| seen.insert(insertion_offset(*s, *before)));
    out
}

/// Whether, in every pair of `f`, a barrier of `body` (a loop's) lies
/// between the two accesses in the text: within one iteration they are
/// ordered already, so they can only race across iterations.
fn separated_within_iteration(kernel: &Kernel, f: &Finding, body: Node) -> bool {
    let (start, end) = (body.start_byte() as u32, body.end_byte() as u32);
    let barriers: Vec<Span> = kernel
        .barriers()
        .iter()
        .map(|b| b.span)
        .filter(|s| start <= s.start.offset && s.end.offset <= end)
        .collect();
    f.pairs.iter().all(|p| {
        let (a, b) = if p.first.start.offset <= p.second.start.offset {
            (p.first, p.second)
        } else {
            (p.second, p.first)
        };
        barriers
            .iter()
            .any(|s| a.end.offset <= s.start.offset && s.end.offset <= b.start.offset)
    })
}

fn without_barrier(stmts: &mut Vec<Stmt>, id: usize) -> bool {
    if let Some(i) = stmts
        .iter()
        .position(|s| matches!(s, Stmt::Barrier(b) if b.id == id))
    {
        stmts.remove(i);
        return true;
    }
    stmts.iter_mut().any(|s| match s {
        Stmt::If(t, e) => without_barrier(t, id) || without_barrier(e, id),
        Stmt::Loop(l) => without_barrier(&mut l.body, id),
        _ => false,
    })
}

fn barrier_at<'k>(kernel: &'k Kernel, span: &Span) -> Option<&'k Barrier> {
    kernel.barriers().into_iter().find(|b| b.span == *span)
}

fn removal_fix(checker: &Checker, f: &Finding, before: &Summary) -> Option<Fix> {
    let text = checker.text;
    let barrier = barrier_at(checker.kernel, &f.span)?;
    let node = node_at(checker.tree, &f.span)?;
    let stmt = enclosing_statements(node).into_iter().next()?;
    if stmt.kind() != "expression_statement" {
        return None;
    }
    let mut model = checker.kernel.clone();
    if !without_barrier(&mut model.body, barrier.id) {
        return None;
    }
    let (line_start, _) = line_start_and_indent(text, stmt.start_byte());
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
    matches!(checker.judge(&model, before, &[]), Verdict::Good).then(|| Fix {
        title: "Remove redundant `__syncthreads()`".into(),
        edits: vec![edit],
        verified: true,
        precondition: false,
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

/// The model of the hoist: `If(pre; b; post)` becomes `If(pre); b'; If(post)`
/// with `b'` at the guard of the `if` statement itself (the leaves keep
/// their guards: the fix is only offered when `pre` leaves `c` unchanged).
fn hoisted(stmts: &mut Vec<Stmt>, id: usize, guard: &crate::model::Expr) -> bool {
    let direct = stmts.iter().position(|s| {
        matches!(s, Stmt::If(t, e) if e.is_empty()
            && t.iter().any(|x| matches!(x, Stmt::Barrier(b) if b.id == id)))
    });
    if let Some(i) = direct {
        let Stmt::If(mut pre, _) = stmts.remove(i) else {
            return false;
        };
        let Some(j) = pre
            .iter()
            .position(|x| matches!(x, Stmt::Barrier(b) if b.id == id))
        else {
            return false;
        };
        let post = pre.split_off(j + 1);
        let Some(Stmt::Barrier(mut b)) = pre.pop() else {
            return false;
        };
        b.guard = guard.clone();
        b.conditions.pop();
        stmts.insert(i, Stmt::If(post, Vec::new()));
        stmts.insert(i, Stmt::Barrier(b));
        stmts.insert(i, Stmt::If(pre, Vec::new()));
        return true;
    }
    stmts.iter_mut().any(|s| match s {
        Stmt::If(t, e) => hoisted(t, id, guard) || hoisted(e, id, guard),
        Stmt::Loop(l) => hoisted(&mut l.body, id, guard),
        _ => false,
    })
}

fn hoist_fix(checker: &Checker, f: &Finding, before: &Summary) -> Option<Fix> {
    let text = checker.text;
    let barrier = barrier_at(checker.kernel, &f.span)?;
    let node = node_at(checker.tree, &f.span)?;
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
    let guard = checker
        .kernel
        .stmt_guards
        .iter()
        .find(|(o, _)| *o == iff.start_byte() as u32)?
        .1
        .clone();
    let mut model = checker.kernel.clone();
    if !hoisted(&mut model.body, barrier.id, &guard) {
        return None;
    }
    let (_, indent) = line_start_and_indent(text, iff.start_byte());
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
    let fewer_divergent = checker
        .check(&model)
        .is_some_and(|a| a.divergent < before.divergent);
    (fewer_divergent && matches!(checker.judge(&model, before, &[]), Verdict::Good)).then(|| Fix {
        title: "Hoist `__syncthreads()` out of the thread-dependent branch".into(),
        edits: vec![edit],
        verified: true,
        precondition: false,
    })
}
