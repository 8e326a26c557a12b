//! Checked claims of the code (`__assert`, loop invariants, preconditions
//! of inlined device functions): a claim holds when no thread that reaches
//! it, under the kernel's assumptions, can falsify it (one query, unsat).
//! A satisfying model is confirmed by evaluating the claim's path
//! condition and its negation concretely under the model before it becomes
//! an `assertion` finding; a claim that rests on a value the loop model
//! summarises is `unknown`, never a finding. Also the kernel's note listing
//! the assumptions its verdict rests on. Must not look at accesses or
//! barriers.

use super::context::*;
use super::smt;
use crate::cache::QueryOutcome;
use crate::model::*;
use crate::report::*;
use crate::symbols;

impl<'k> KernelContext<'k> {
    pub(super) fn check_assertions(&mut self) -> Vec<Finding> {
        let k = self.kernel;
        let mut out = Vec::new();
        for a in &k.assertions {
            if self.cancelled() {
                break;
            }
            // Two-thread predicates speak of two distinct threads anywhere
            // in the grid, both at this point of the same loop iteration.
            let two_threads = a.cond.mentions_other_thread() || a.guard.mentions_other_thread();
            let rel = Relation::Any;
            // What atomics returned: a position in an order the barriers
            // allow where that is exact, else any value (`atomic_results`).
            let orders = self.result_orders(&Expr::and(a.guard.clone(), a.cond.clone()));
            let by_order = |e: &Expr| {
                e.subst(&mut |v: &Var| {
                    orders
                        .subst
                        .iter()
                        .find(|(r, _)| r == v)
                        .map(|(_, x)| x.clone())
                })
            };
            let reached = self.instantiate(&by_order(&a.guard), 1, rel, &[], true);
            let violated = Expr::not(self.instantiate(&by_order(&a.cond), 1, rel, &[], true));
            let mut facts = vec![reached.clone(), violated.clone()];
            facts.extend(
                orders
                    .facts
                    .iter()
                    .map(|f| self.instantiate(f, 1, rel, &[], true)),
            );
            if two_threads {
                facts.extend(self.relation_constraints(rel));
            }
            facts.extend(self.assumptions(rel, true));
            let what = claim_name(a.kind);
            match smt::solve(
                &facts,
                &self.env,
                self.config,
                self.cache,
                &mut self.counters,
            ) {
                QueryOutcome::Unsat => {}
                QueryOutcome::Unknown(reason) => out.push(Finding::new(
                    FindingKind::Unknown,
                    Some(&k.name),
                    a.span,
                    format!(
                        "unknown: could not decide whether {what} `{}` holds ({reason})",
                        a.text
                    ),
                )),
                QueryOutcome::Sat(values) => {
                    let confirmed = self.eval_model(&reached, &values) == Some(1)
                        && self.eval_model(&violated, &values) == Some(1)
                        && self.head_reached(a, rel, &values);
                    // A value made inside a loop may be the loop model's
                    // summary of a variable rather than one real value.
                    let in_loop = |v: &Var| {
                        matches!(v.kind, VarKind::Unknown { .. })
                            && symbols::is_iteration_tagged(&v.name)
                    };
                    let summarised = a.cond.mentions(&mut |v| in_loop(v))
                        || a.guard.mentions(&mut |v| in_loop(v));
                    if !confirmed || summarised || !orders.exact {
                        let why = if orders.exact {
                            "it depends on values the model does not track exactly"
                        } else {
                            "it depends on what an atomic operation returns, which the model bounds only for a per-block counter set up by the kernel"
                        };
                        out.push(Finding::new(
                            FindingKind::Unknown,
                            Some(&k.name),
                            a.span,
                            format!("unknown: could not prove {what} `{}`: {why}", a.text),
                        ));
                        continue;
                    }
                    let mut w = self.witness(&values, rel, 0);
                    w.values.retain(|(n, _)| n != "index");
                    if !two_threads {
                        w.threads.truncate(1);
                    }
                    if let Some((counter, _)) = &a.head {
                        let k = self.instantiate(&Expr::Var(counter.clone()), 1, rel, &[], true);
                        if let Some(k) = self.eval_value(&k, &values) {
                            w.values.push(("iteration".to_string(), k));
                        }
                    }
                    // The order that makes it fail: how many threads of the
                    // block made the atomic operation before this one.
                    let mut schedule = String::new();
                    for (j, o) in &orders.positions {
                        let j = self.instantiate(&Expr::Var(j.clone()), 1, rel, &[], true);
                        if let Some(j) = self.eval_value(&j, &values) {
                            let op = &k.atomic_ops[*o];
                            w.values.push((format!("order of `{}`", op.text), j));
                            schedule.push_str(&format!(
                                "; schedule: {j} other thread(s) of the block make `{}` (line {}) before the thread of the witness",
                                op.text,
                                op.span.start.line + 1
                            ));
                        }
                    }
                    let mut f = Finding::new(
                        FindingKind::Assertion,
                        Some(&k.name),
                        a.span,
                        format!(
                            "{what} can fail: `{}` is false for the thread of the witness{schedule}",
                            a.text
                        ),
                    );
                    if let Some(site) = a.call_site {
                        f.related.push(Related {
                            span: site,
                            message: "the call that must establish it".into(),
                        });
                    }
                    f.witness = Some(w);
                    out.push(f);
                }
            }
        }
        out
    }

    /// A loop-head claim at iteration k is reached only when the loop's
    /// condition held at every earlier iteration: replayed concretely.
    fn head_reached(&self, a: &Assertion, rel: Relation, values: &[(String, i64)]) -> bool {
        let Some((counter, cond)) = &a.head else {
            return true;
        };
        let k = self.instantiate(&Expr::Var(counter.clone()), 1, rel, &[], true);
        let Some(k) = self.eval_value(&k, values) else {
            return false;
        };
        if !(0..=MAX_REPLAYED_ITERATIONS).contains(&k) {
            return false;
        }
        (0..k).all(|j| {
            let at_j = cond.subst(&mut |v: &Var| (v == counter).then_some(Expr::Const(j)));
            let at_j = self.instantiate(&at_j, 1, rel, &[], true);
            self.eval_model(&at_j, values) == Some(1)
        })
    }

    /// One note per kernel: the assumptions the code states (every verdict
    /// holds only under them) and the specifications nothing rests on.
    pub(super) fn assumption_note(&self) -> Option<Finding> {
        let k = self.kernel;
        if k.assumption_texts.is_empty() && k.unused_specs.is_empty() {
            return None;
        }
        let list = |items: &[(Span, String)]| {
            items
                .iter()
                .map(|(span, text)| format!("`{text}` (line {})", span.start.line + 1))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut message = String::new();
        if !k.assumption_texts.is_empty() {
            // Each assumption says where it came from: a launch fact at the
            // kernel's name must not read as an annotation written there.
            let mut stated: Vec<(String, Option<&str>)> = Vec::new();
            for a in &k.assumption_texts {
                match &a.origin {
                    AssumptionOrigin::Annotation => stated.push((
                        format!(
                            "`{}` (annotation at line {})",
                            a.text,
                            a.span.start.line + 1
                        ),
                        None,
                    )),
                    // The facts of one launch together, its site once.
                    AssumptionOrigin::Launch(at) => match stated.last_mut() {
                        Some((facts, Some(last))) if *last == at.as_str() => {
                            facts.push_str(&format!(", `{}`", a.text))
                        }
                        _ => stated.push((format!("`{}`", a.text), Some(at))),
                    },
                }
            }
            let mut stated: Vec<String> = stated
                .into_iter()
                .map(|(text, launch)| match launch {
                    Some(at) => format!("{text} (from the launch at {at})"),
                    None => text,
                })
                .collect();
            // The sizes the user fixed bound the verdict too: said first,
            // each with where it was written (a flag, syncscope.toml's
            // line, the file's directive).
            if let Some(given) = self.options.user_launch_text(&k.name) {
                stated.insert(0, given);
            }
            message.push_str(&format!(
                "`{}` is checked under these assumptions: {}",
                k.name,
                stated.join("; ")
            ));
        }
        if !k.unused_specs.is_empty() {
            if !message.is_empty() {
                message.push_str("; ");
            }
            message.push_str(&format!(
                "neither assumed nor checked (no verdict rests on them): {}",
                list(&k.unused_specs)
            ));
        }
        Some(Finding::new(
            FindingKind::Assumption,
            Some(&k.name),
            k.span,
            message,
        ))
    }
}

/// Loop-head claims are replayed iteration by iteration up to this many.
const MAX_REPLAYED_ITERATIONS: i64 = 100_000;

fn claim_name(kind: AssertionKind) -> &'static str {
    match kind {
        AssertionKind::Assert => "the assertion",
        AssertionKind::Invariant => "the loop invariant",
        AssertionKind::Precondition => "the precondition",
        AssertionKind::WarpMask => "the requirement of `__syncwarp(mask)`",
    }
}
