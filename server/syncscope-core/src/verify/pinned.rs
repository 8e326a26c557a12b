//! Parameters a query pins to one value: a top-level assertion `lb == 16`
//! (a launch's argument, an `assume` of the code; likewise a launch size,
//! `gridDim.z == 2`) makes every product with
//! `lb` a product with the constant 16. Written as the variable, `(ty *
//! lb) * pitch` is a product of three run-time values, which Z3's nonlinear
//! core searches for millions of resource units and the small-factor split
//! (`small_factors`) cannot see through; folded, it is `16 * ty * pitch`,
//! split over `ty` and linear in `pitch`.
//!
//! The rewrite is an identity under the pin: every model of the query has
//! `lb == 16`, so replacing `lb` by 16 elsewhere changes no model, and the
//! pin itself is kept (the model still names the parameter's value, which
//! the witness reports). Must not decide anything: the rewritten query goes
//! to Z3 like the original.

use crate::model::{BinOp, Expr, Var, VarKind};
use std::collections::HashMap;

/// The parameters (and launch sizes) `assertions` pin to one constant by
/// a top-level conjunct `p == c` (or `c == p`). A parameter pinned to two different
/// constants is left out (the query is unsat; Z3 says so as written).
pub(crate) fn pinned_parameters(assertions: &[Expr]) -> HashMap<Var, i64> {
    pinned_variables(assertions, |k| {
        matches!(
            k,
            VarKind::Param { .. } | VarKind::GridDim(_) | VarKind::BlockDim(_)
        )
    })
}

/// The variables of the kinds `accept` takes that `assertions` pin to one
/// constant by a top-level conjunct `v == c` (or `c == v`); one pinned to
/// two different constants is left out.
pub(crate) fn pinned_variables(
    assertions: &[Expr],
    accept: impl Fn(VarKind) -> bool,
) -> HashMap<Var, i64> {
    let mut pins: HashMap<Var, Option<i64>> = HashMap::new();
    let mut parts = Vec::new();
    for a in assertions {
        conjuncts(a, &mut parts);
    }
    for p in parts {
        let Expr::Bin(BinOp::Eq, x, y) = p else {
            continue;
        };
        let pin = match (&**x, &**y) {
            (Expr::Var(v), Expr::Const(c)) | (Expr::Const(c), Expr::Var(v)) if accept(v.kind) => {
                (v, *c)
            }
            _ => continue,
        };
        let slot = pins.entry(pin.0.clone()).or_insert(Some(pin.1));
        if *slot != Some(pin.1) {
            *slot = None;
        }
    }
    pins.into_iter()
        .filter_map(|(v, c)| Some((v, c?)))
        .collect()
}

/// `assertions` with every pinned parameter ([`pinned_parameters`])
/// replaced by its value, and the pins restated at the end (a pin inside
/// a conjunction folds to `true` with it). The assertions themselves when
/// nothing is pinned (same text, same cache key).
pub(crate) fn fold_pinned_parameters(assertions: &[Expr]) -> Vec<Expr> {
    let pins = pinned_parameters(assertions);
    if pins.is_empty() {
        return assertions.to_vec();
    }
    let mut out: Vec<Expr> = assertions
        .iter()
        .map(|a| a.subst(&mut |v: &Var| pins.get(v).map(|c| Expr::Const(*c))))
        .collect();
    let mut restated: Vec<(&Var, &i64)> = pins.iter().collect();
    restated.sort();
    for (v, c) in restated {
        out.push(Expr::eq(Expr::Var(v.clone()), Expr::Const(*c)));
    }
    out
}

fn conjuncts<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    match e {
        Expr::Bin(BinOp::And, a, b) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        _ => out.push(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::replay::eval_expr;

    fn param(name: &str) -> Expr {
        Expr::Var(Var::new(
            name,
            VarKind::Param {
                lo: i32::MIN as i64,
                hi: i32::MAX as i64,
            },
        ))
    }

    /// `(t * lb) * pitch` with `lb == 16` asserted becomes `16 * t * pitch`
    /// (one run-time product fewer), the pin is kept, and the folded query
    /// agrees with the original on every assignment that satisfies the pin.
    #[test]
    fn a_pinned_parameter_is_folded_and_its_pin_kept() {
        let t = Expr::Var(Var::new("threadIdx.y#1", VarKind::ThreadIdx(1)));
        let (lb, pitch) = (param("lb"), param("pitch"));
        let index = Expr::mul(Expr::mul(t, lb.clone()), pitch);
        let pin = Expr::eq(lb.clone(), Expr::Const(16));
        let query = [Expr::and(pin, Expr::tru()), index.clone()];
        let folded = fold_pinned_parameters(&query);
        assert_eq!(folded.len(), 3, "the pin is restated");
        assert!(!folded[1].mentions(&mut |v| &*v.name == "lb"));
        assert_eq!(folded[2], Expr::eq(lb, Expr::Const(16)));
        for (tv, pv) in [(0, 7), (3, -5), (2, 4096)] {
            let look = |v: &Var| match &*v.name {
                "threadIdx.y#1" => Some(tv),
                "pitch" => Some(pv),
                "lb" => Some(16),
                _ => None,
            };
            assert_eq!(
                eval_expr(&folded[1], &look, false),
                eval_expr(&index, &look, false)
            );
        }
    }

    /// Two different pins, or a pin under a disjunction, fold nothing.
    #[test]
    fn only_one_top_level_pin_folds() {
        let lb = param("lb");
        let twice = [
            Expr::eq(lb.clone(), Expr::Const(16)),
            Expr::eq(Expr::Const(8), lb.clone()),
        ];
        assert!(pinned_parameters(&twice).is_empty());
        let guarded = [Expr::bin(
            BinOp::Or,
            Expr::eq(lb.clone(), Expr::Const(16)),
            Expr::eq(lb, Expr::Const(8)),
        )];
        assert!(pinned_parameters(&guarded).is_empty());
        assert_eq!(fold_pinned_parameters(&guarded), guarded.to_vec());
    }
}
