//! The condition on a kernel's scalar parameters under which a race can
//! happen: for each parameter its race query mentions, the tightest
//! thresholds `p < U` / `p > L` outside which the query of the racing pair
//! is unsatisfiable. A host the tool cannot follow leaves the parameters
//! symbolic, so a witness may use values no launch passes (`width = -2`);
//! the condition tells the user at once whether the race is theirs.
//!
//! Only candidates come out of here: each threshold is proved for the one
//! pair of instances and relation the race was found under. The driver
//! (`analysis::fixes`) states a condition only after the whole kernel,
//! assumed outside it, verified without the race (every relation, every
//! interval). Must not word the condition (the driver renders it).

use super::context::KernelContext;
use super::races::{pair_group, RaceHit};
use super::smt::{self, SolverConfig};
use crate::cache::QueryOutcome;
use crate::model::*;

/// Solver calls spent on one finding's thresholds at most (each under a
/// share of the engine's deterministic resource limit): a search that runs
/// out keeps the thresholds proved so far, which are looser, never wrong.
const MAX_QUERIES: usize = 32;
/// A probe's share of the engine's resource limit per query (`--rlimit`).
const PROBE_RLIMIT_SHARE: u32 = 20;
/// Parameters searched per racing pair at most (the first ones by name).
const MAX_PARAMS: usize = 4;
/// Racing pairs of one finding whose thresholds are searched.
const MAX_HITS: usize = 4;
/// Thresholds farther from zero are left out: proved, but what they rule
/// out is arithmetic near the type's limits (`EDGE < 1073741824`), not a
/// launch a user would recognise. Leaving one out only weakens the
/// condition (still proved: each threshold is proved on its own).
const PLAIN_THRESHOLD: i64 = 1 << 24;

/// A parameter's thresholds: the pair's query is unsatisfiable with
/// `p <= above` and with `p >= below` (each when present).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ParamBound {
    pub var: Var,
    pub above: Option<i64>,
    pub below: Option<i64>,
}

/// What the search found for a finding's racing pairs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RaceBounds {
    /// No racing pair's query mentions a parameter: the race does not
    /// depend on their values.
    EveryValue,
    /// Every pair races only inside these thresholds (per pair: proved
    /// for its instances and relation).
    Within(Vec<ParamBound>),
    /// No threshold was found (or the search could not decide).
    Unbounded,
}

/// The thresholds of the racing pairs `hits` (of one finding of `kernel`):
/// the hull of each pair's, so that every pair races only inside them.
pub(crate) fn race_bounds(cx: &mut KernelContext, hits: &[&RaceHit]) -> RaceBounds {
    if hits.is_empty() || hits.len() > MAX_HITS {
        return RaceBounds::Unbounded;
    }
    let mut budget = MAX_QUERIES;
    let mut hull: Option<Vec<ParamBound>> = None;
    for hit in hits {
        let bounds = match cx.pair_bounds(hit, &mut budget) {
            RaceBounds::Within(b) => b,
            other => return other,
        };
        hull = Some(match hull {
            None => bounds,
            Some(h) => widen(&h, &bounds),
        });
    }
    let Some(hull) = hull.filter(|h| !h.is_empty()) else {
        return RaceBounds::Unbounded;
    };
    // The kernel's own assumptions may already rule out the outside (a
    // `__requires(width < 8)`): assuming it would leave no launch at all,
    // and a condition they imply tells nothing.
    let mut facts = cx.assumptions(hits[0].relation, false);
    facts.push(outside(&hull));
    let config = SolverConfig {
        witness: false,
        ..cx.config
    };
    match smt::solve(&facts, &cx.env, config, cx.cache, &mut cx.counters) {
        QueryOutcome::Sat(_) => RaceBounds::Within(hull),
        _ => RaceBounds::Unbounded,
    }
}

/// The values outside the thresholds (some parameter at or past one of
/// its thresholds): where the racing pairs cannot race.
pub(crate) fn outside(bounds: &[ParamBound]) -> Expr {
    let var = |v: &Var| Expr::Var(v.clone());
    bounds.iter().fold(Expr::fals(), |acc, b| {
        let mut out = Expr::fals();
        if let Some(a) = b.above {
            out = Expr::or(out, Expr::bin(BinOp::Le, var(&b.var), Expr::Const(a)));
        }
        if let Some(u) = b.below {
            out = Expr::or(out, Expr::bin(BinOp::Ge, var(&b.var), Expr::Const(u)));
        }
        Expr::or(acc, out)
    })
}

/// Whether C code at the kernel's start can name the parameter (a plain
/// identifier: a parameter or template parameter, not a struct member).
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The loosest of two sets of thresholds: a parameter bounded on a side
/// in both keeps the looser threshold there; any other side is dropped.
fn widen(a: &[ParamBound], b: &[ParamBound]) -> Vec<ParamBound> {
    let mut out = Vec::new();
    for x in a {
        let Some(y) = b.iter().find(|y| y.var == x.var) else {
            continue;
        };
        let above = x.above.zip(y.above).map(|(p, q)| p.min(q));
        let below = x.below.zip(y.below).map(|(p, q)| p.max(q));
        if above.is_some() || below.is_some() {
            out.push(ParamBound {
                var: x.var.clone(),
                above,
                below,
            });
        }
    }
    out
}

/// Whether `assertions` can hold: `Some(true)` sat, `Some(false)` unsat,
/// `None` undecided or out of budget.
type Probe<'a> = dyn FnMut(&[Expr]) -> Option<bool> + 'a;

impl KernelContext<'_> {
    fn pair_bounds(&mut self, hit: &RaceHit, budget: &mut usize) -> RaceBounds {
        let group = pair_group(hit);
        let Some((query, _)) = self.pair_query(&group, hit) else {
            return RaceBounds::Unbounded;
        };
        let mut base = query.base;
        // As the race search asks it: two writes of one value are no race
        // (unless strict), so their values' difference is part of the query.
        if !self.options.strict_benign && self.writes_may_collide(&query.insts, hit.relation) {
            if let Some((differ, _)) = self.written_values(&query.insts, hit.relation) {
                base.push(differ);
            }
        }
        let mut params: Vec<Var> = Vec::new();
        for e in &base {
            e.for_each_var(&mut |v| {
                if matches!(v.kind, VarKind::Param { .. }) && !params.contains(v) {
                    params.push(v.clone());
                }
            });
        }
        if params.is_empty() {
            return RaceBounds::EveryValue;
        }
        // Thresholds only on what an assumption at the kernel's start can
        // name (leaving one out only weakens the condition).
        params.retain(|v| is_identifier(&v.name));
        params.sort_by(|a, b| a.name.cmp(&b.name));
        params.truncate(MAX_PARAMS);
        // A probe is one threshold among many: a hard one (nonlinear index
        // arithmetic near the threshold) is left undecided early, which
        // ends that search with what it proved.
        let config = SolverConfig {
            witness: false,
            rlimit: self.config.rlimit / PROBE_RLIMIT_SHARE,
            ..self.config
        };
        let mut probe = |extra: &[Expr]| -> Option<bool> {
            if *budget == 0 || self.cancelled() {
                return None;
            }
            *budget -= 1;
            let mut all = base.clone();
            all.extend(extra.iter().cloned());
            match smt::solve(&all, &self.env, config, self.cache, &mut self.counters) {
                QueryOutcome::Sat(_) => Some(true),
                QueryOutcome::Unsat => Some(false),
                QueryOutcome::Unknown(_) => None,
            }
        };
        let mut out = Vec::new();
        for var in params {
            let VarKind::Param { lo, hi } = var.kind else {
                continue;
            };
            // The witness's value is where the race is known to happen.
            let Some(seen) = hit
                .witness
                .values
                .iter()
                .find(|(n, _)| **n == *var.name)
                .map(|(_, x)| *x)
            else {
                continue;
            };
            let plain = |k: &i64| k.abs() <= PLAIN_THRESHOLD;
            let below = upper_threshold(&mut probe, &var, seen, hi).filter(plain);
            let above = lower_threshold(&mut probe, &var, seen, lo).filter(plain);
            if above.is_some() || below.is_some() {
                out.push(ParamBound { var, above, below });
            }
        }
        if out.is_empty() {
            RaceBounds::Unbounded
        } else {
            RaceBounds::Within(out)
        }
    }
}

/// The smallest `k` above `seen` (found by doubling steps, then halving
/// the gap) such that the query with `var >= k` is unsatisfiable; `None`
/// when only the type's range bounds it (`var >= hi` still satisfiable,
/// or undecided). The result is always a proved threshold.
fn upper_threshold(probe: &mut Probe, var: &Var, seen: i64, hi: i64) -> Option<i64> {
    let at_least = |k: i64| Expr::bin(BinOp::Ge, Expr::Var(var.clone()), Expr::Const(k));
    search(probe, seen, hi, &at_least)
}

/// The mirror of [`upper_threshold`]: the largest `k` below `seen` with
/// the query unsatisfiable under `var <= k`.
fn lower_threshold(probe: &mut Probe, var: &Var, seen: i64, lo: i64) -> Option<i64> {
    // Searched on the negated axis: `var <= k` is `-var >= -k`.
    let at_most = |k: i64| Expr::bin(BinOp::Le, Expr::Var(var.clone()), Expr::Const(-k));
    search(probe, seen.checked_neg()?, lo.checked_neg()?, &at_most).map(|k| -k)
}

/// The smallest `k` in `(seen, end)` with `probe([bound(k)])` unsat,
/// where satisfiability only falls as `k` grows (`bound(k)` is stronger
/// for a larger `k`). `None` when `bound(end)` is not proved unsat (the
/// race reaches the end of the type's range) and when nothing tighter
/// than `end` is proved (a threshold at the range's end says nothing).
fn search(probe: &mut Probe, seen: i64, end: i64, bound: &dyn Fn(i64) -> Expr) -> Option<i64> {
    if end <= seen || probe(&[bound(end)]) != Some(false) {
        return None;
    }
    tighten(probe, seen, end, bound).filter(|k| *k < end)
}

fn tighten(probe: &mut Probe, seen: i64, end: i64, bound: &dyn Fn(i64) -> Expr) -> Option<i64> {
    // `sat` holds a satisfiable (or the witness's) point, `unsat` a proved one.
    let (mut sat, mut unsat) = (seen, end);
    let mut step: i64 = 1;
    while let Some(k) = sat.checked_add(step).filter(|k| *k < unsat) {
        match probe(&[bound(k)]) {
            Some(false) => {
                unsat = k;
                break;
            }
            Some(true) => sat = k,
            // Undecided: the halving below may still prove a tighter one.
            None => break,
        }
        step = step.saturating_mul(2);
    }
    while unsat - sat > 1 {
        let mid = sat + (unsat - sat) / 2;
        match probe(&[bound(mid)]) {
            Some(false) => unsat = mid,
            Some(true) => sat = mid,
            None => break,
        }
    }
    Some(unsat)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var() -> Var {
        Var::new(
            "n",
            VarKind::Param {
                lo: i32::MIN as i64,
                hi: i32::MAX as i64,
            },
        )
    }

    /// A probe answering as a race query satisfiable exactly for `n` in
    /// `lo..hi` would, counting its calls.
    fn probe_for(lo: i64, hi: i64, calls: &mut usize) -> impl FnMut(&[Expr]) -> Option<bool> + '_ {
        move |extra: &[Expr]| {
            *calls += 1;
            let Expr::Bin(op, _, k) = &extra[0] else {
                panic!("a threshold")
            };
            let Expr::Const(k) = **k else {
                panic!("a constant")
            };
            Some(match op {
                BinOp::Ge => k < hi,
                BinOp::Le => k >= lo,
                _ => panic!("a comparison"),
            })
        }
    }

    #[test]
    fn thresholds_are_the_tightest_proved_ones() {
        let mut calls = 0;
        let mut probe = probe_for(-7, 16, &mut calls);
        let v = var();
        assert_eq!(upper_threshold(&mut probe, &v, -2, v_hi()), Some(16));
        assert_eq!(lower_threshold(&mut probe, &v, -2, v_lo()), Some(-8));
        drop(probe);
        assert!(calls <= 30, "{calls} queries");
    }

    #[test]
    fn a_race_up_to_the_type_range_has_no_threshold() {
        let mut calls = 0;
        let mut probe = probe_for(i32::MIN as i64, i32::MAX as i64 + 1, &mut calls);
        let v = var();
        assert_eq!(upper_threshold(&mut probe, &v, 3, v_hi()), None);
        assert_eq!(lower_threshold(&mut probe, &v, 3, v_lo()), None);
        drop(probe);
        assert_eq!(calls, 2, "one query per side decides it");
    }

    #[test]
    fn an_undecided_search_keeps_only_what_it_proved() {
        // Satisfiable below 40, undecided from 40 to 63, unsat from 64:
        // a proved threshold close above 64, nothing below it claimed.
        let answer = |extra: &[Expr]| {
            let Expr::Bin(BinOp::Ge, _, k) = &extra[0] else {
                panic!("an upper threshold")
            };
            let Expr::Const(k) = **k else {
                panic!("a constant")
            };
            match k {
                ..=39 => Some(true),
                40..=63 => None,
                _ => Some(false),
            }
        };
        let mut probe = answer;
        let found = upper_threshold(&mut probe, &var(), 0, v_hi());
        assert!(
            found.is_some_and(|k| (64..1 << 20).contains(&k)),
            "{found:?}"
        );
        // Undecided everywhere but at the range's end: no threshold.
        let mut probe = |extra: &[Expr]| match &extra[0] {
            Expr::Bin(BinOp::Ge, _, k) if **k == Expr::Const(i32::MAX as i64) => Some(false),
            _ => None,
        };
        assert_eq!(upper_threshold(&mut probe, &var(), 0, v_hi()), None);
    }

    #[test]
    fn the_hull_of_two_pairs_keeps_the_looser_thresholds_on_common_sides() {
        let n = var();
        let m = Var::new("m", n.kind);
        let a = vec![
            ParamBound {
                var: n.clone(),
                above: Some(0),
                below: Some(16),
            },
            ParamBound {
                var: m.clone(),
                above: None,
                below: Some(4),
            },
        ];
        let b = vec![ParamBound {
            var: n.clone(),
            above: None,
            below: Some(32),
        }];
        assert_eq!(
            widen(&a, &b),
            vec![ParamBound {
                var: n,
                above: None,
                below: Some(32),
            }]
        );
    }

    #[test]
    fn only_plain_identifiers_are_named() {
        assert!(is_identifier("_w2") && is_identifier("width"));
        assert!(!is_identifier("p.n") && !is_identifier("2w") && !is_identifier("x#1"));
    }

    fn v_hi() -> i64 {
        i32::MAX as i64
    }
    fn v_lo() -> i64 {
        i32::MIN as i64
    }
}
