//! What a race between two accesses depends on that the model does not
//! decide (code it cannot see, a lock both hold, an `atomicInc` ticket, an
//! unmodelled fenced atomic): such a race is a possible race, reported
//! `not-verified`, never a definite one. `race_findings` words them;
//! `races` does not ask for them in a kernel already not-verified.

use crate::model::*;
use std::collections::BTreeSet;

/// The unseen names an assumption fixes to one value (`c_step == 2`, a
/// launch's copy into a `__constant__` symbol; `__requires(N == 4)`): a
/// race through them replays with that value, so it is decided. Only the
/// very variable the assumption names: another variable of the same origin
/// (a fresh result of an unseen call) stays undecided.
pub(super) fn pinned_unseen(k: &Kernel) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for a in &k.assumptions {
        if let Expr::Bin(BinOp::Eq, l, r) = a {
            let var = match (l.as_ref(), r.as_ref()) {
                (Expr::Var(v), Expr::Const(_)) | (Expr::Const(_), Expr::Var(v)) => Some(v),
                _ => None,
            };
            if let Some(v) = var.filter(|v| v.unseen_origin().is_some()) {
                out.insert(v.name.to_string());
            }
        }
    }
    out
}

/// What a race between `a` and `b` depends on that the model does not
/// decide: names of code it cannot see, a lock both accesses hold
/// (`lock@l`), an atomic after `__threadfence()` either follows
/// (`fence@t`). Empty for a definite race.
pub(super) fn undecided_origins(
    a: &Access,
    b: &Access,
    modelled: &[String],
    pinned: &BTreeSet<String>,
) -> BTreeSet<String> {
    let mut origins = unmodelled_origins(a, b, pinned);
    // Code after a fenced atomic may be ordered after other blocks' writes
    // by that atomic (the last-block pattern): undecided unless the model
    // of the pattern (`modelled`, the counters of `verify::last_block`)
    // covers it.
    origins.extend(
        a.guard
            .fences_after()
            .union(&b.guard.fences_after())
            .filter(|t| !modelled.contains(t))
            .map(|t| format!("fence@{t}")),
    );
    origins
}

/// The part of [`undecided_origins`] read from the two accesses alone,
/// before any query: names of code the model cannot see (`pinned`: those
/// an assumption fixes), a lock both hold, an `atomicInc` ticket. A pair
/// with one is never a definite race (`races` skips asking for it in a
/// kernel that is not-verified already).
pub(super) fn unmodelled_origins(
    a: &Access,
    b: &Access,
    pinned: &BTreeSet<String>,
) -> BTreeSet<String> {
    let mut origins = BTreeSet::new();
    for e in [&a.index, &a.guard, &b.index, &b.guard] {
        e.for_each_var(&mut |v| {
            if let Some(o) = v
                .unseen_origin()
                .filter(|_| !pinned.contains(v.name.as_ref()))
            {
                origins.insert(o.to_string());
            }
        });
    }
    // A lock matters only when both accesses hold it: with one side outside
    // it, the race is definite.
    origins.extend(
        a.guard
            .locks_held()
            .intersection(&b.guard.locks_held())
            .map(|l| format!("lock@{l}")),
    );
    // A value `atomicInc` returned (outside the last-block pattern, whose
    // block tickets have names of their own): tickets up to its wrap bound,
    // not modelled; never a definite race nor silently safe.
    for e in [&a.index, &a.guard, &b.index, &b.guard] {
        e.for_each_var(&mut |v| {
            if crate::symbols::is_atomic_inc_result(&v.name) {
                origins.insert("wrap@atomicInc".to_string());
            }
        });
    }
    origins
}
