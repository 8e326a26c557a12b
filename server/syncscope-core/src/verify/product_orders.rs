//! Products of run-time values compared through the factor they differ in,
//! for queries Z3's nonlinear core gives up on.
//!
//! Two blocks of a tiled image address `(blockIdx.y * 32 + ...) * stride +
//! column`, the stride a parameter: once the factors of few values are
//! split (`small_factors`), what stays nonlinear is `blockIdx.y#1 * stride`
//! against `blockIdx.y#2 * stride`, and Z3 answers `incomplete` after
//! millions of resource units. The argument it misses is place value:
//! different rows lie at least one stride apart, and when the columns a row
//! spans are fewer than the stride (a fact the query must state, such as
//! `stride >= 32 * gridDim.x`), addresses of different rows never meet,
//! while equal rows leave the columns to compare, linearly.
//!
//! So the query is abstracted linearly (`linearize`: each product one
//! unknown) and, for every two products `x1 * R` and `x2 * R` that differ
//! in one factor, these facts are added (with `x1`, `x2` swapped too):
//!
//! - `x1 == x2` gives `x1 * R == x2 * R`;
//! - `x1 > x2` and `R >= 0` give `x1 * R - x2 * R >= R`;
//! - `x1 > x2` and `R <= 0` give `x1 * R - x2 * R <= R`.
//!
//! Each holds over the integers whatever the query (`x1 * R - x2 * R ==
//! (x1 - x2) * R` with `x1 - x2 >= 1`), so a model of the query, each
//! unknown set to its product's value, is a model of the abstraction: an
//! unsatisfiable abstraction proves the query unsatisfiable. A satisfiable
//! one proves nothing and is never a witness. Mathematical integers only:
//! the caller does not use it under `--bitvector`.

use super::linearize::{abstract_products_keeping, product_unknown, Abstracted};
use crate::model::{BinOp, Expr, Var};
use std::collections::BTreeMap;

/// At most this many pairs of products get their facts (four disjunctions
/// each, every one a case Z3 may have to split on).
const MAX_PAIRS: usize = 256;

/// The linear abstraction of the conjunction `query` with the order facts
/// of its products; `None` when it has no two products one factor apart
/// (no fact to add), grows too large, or stays nonlinear (a division by a
/// run-time value that may be negative: the point is a query linear
/// arithmetic decides).
pub(super) fn linear_with_orders(query: &[Expr]) -> Option<Vec<Expr>> {
    let Abstracted {
        query: mut out,
        mut products,
    } = abstract_products_keeping(query)?;
    let facts = order_facts(&mut products);
    if facts.is_empty() {
        return None;
    }
    out.extend(facts);
    (!out.iter().any(Expr::is_nonlinear)).then_some(out)
}

/// The facts of every two products that differ in exactly one factor; a
/// common part of several factors is itself a product (its unknown made
/// when the query has none: the facts then constrain it alone).
fn order_facts(products: &mut BTreeMap<Vec<Expr>, Var>) -> Vec<Expr> {
    let mut pairs = Vec::new();
    let keys: Vec<&Vec<Expr>> = products.keys().collect();
    'all: for (i, k1) in keys.iter().enumerate() {
        for k2 in &keys[i + 1..] {
            if let Some((x1, x2, common)) = one_factor_apart(k1, k2) {
                if pairs.len() == MAX_PAIRS {
                    break 'all;
                }
                pairs.push(((*k1).clone(), (*k2).clone(), x1, x2, common));
            }
        }
    }
    let mut facts = Vec::new();
    for (k1, k2, x1, x2, common) in pairs {
        let radix = match &common[..] {
            [one] => one.clone(),
            _ => {
                let n = products.len();
                Expr::Var(
                    products
                        .entry(common)
                        .or_insert_with(|| product_unknown(n))
                        .clone(),
                )
            }
        };
        let (p1, p2) = (
            Expr::Var(products[&k1].clone()),
            Expr::Var(products[&k2].clone()),
        );
        facts.push(implies(
            Expr::eq(x1.clone(), x2.clone()),
            Expr::eq(p1.clone(), p2.clone()),
        ));
        for (hi, lo, p_hi, p_lo) in [(&x1, &x2, &p1, &p2), (&x2, &x1, &p2, &p1)] {
            let above = Expr::bin(BinOp::Gt, hi.clone(), lo.clone());
            let gap = Expr::bin(BinOp::Sub, p_hi.clone(), p_lo.clone());
            let zero = Expr::Const(0);
            facts.push(implies(
                Expr::and(
                    above.clone(),
                    Expr::bin(BinOp::Ge, radix.clone(), zero.clone()),
                ),
                Expr::bin(BinOp::Ge, gap.clone(), radix.clone()),
            ));
            facts.push(implies(
                Expr::and(above, Expr::bin(BinOp::Le, radix.clone(), zero)),
                Expr::bin(BinOp::Le, gap, radix.clone()),
            ));
        }
    }
    facts
}

fn implies(a: Expr, b: Expr) -> Expr {
    Expr::or(Expr::not(a), b)
}

/// For two sorted factor lists of one length that are equal but for one
/// factor each: those two factors and the common rest.
fn one_factor_apart(k1: &[Expr], k2: &[Expr]) -> Option<(Expr, Expr, Vec<Expr>)> {
    if k1.len() != k2.len() || k1.len() < 2 {
        return None;
    }
    for (a, x1) in k1.iter().enumerate() {
        let rest1: Vec<&Expr> = k1
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != a)
            .map(|(_, f)| f)
            .collect();
        for (b, x2) in k2.iter().enumerate() {
            if x1 == x2 {
                continue;
            }
            let rest2 = k2
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != b)
                .map(|(_, f)| f);
            if rest2.eq(rest1.iter().copied()) {
                return Some((x1.clone(), x2.clone(), rest1.into_iter().cloned().collect()));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::VarKind;
    use crate::verify::replay::eval_expr;

    fn var(name: &str, kind: VarKind) -> Expr {
        Expr::Var(Var::new(name, kind))
    }

    /// The facts hold for every value of their variables when each product
    /// unknown is its product's value: the abstraction keeps every model.
    #[test]
    fn the_order_facts_hold_for_every_value_of_the_products() {
        let b1 = var("blockIdx.y#1", VarKind::BlockIdx(1));
        let b2 = var("blockIdx.y#2", VarKind::BlockIdx(1));
        let s = var("S", VarKind::Param { lo: -100, hi: 100 });
        let w = var("w", VarKind::Param { lo: -100, hi: 100 });
        // b1 * S * w against b2 * S * w: the common part is a product too.
        let query = vec![
            Expr::eq(
                Expr::mul(b1.clone(), s.clone()),
                Expr::mul(b2.clone(), s.clone()),
            ),
            Expr::eq(
                Expr::mul(Expr::mul(b1.clone(), s.clone()), w.clone()),
                Expr::mul(Expr::mul(b2.clone(), w.clone()), s.clone()),
            ),
        ];
        let Abstracted { mut products, .. } = abstract_products_keeping(&query).expect("products");
        let facts = order_facts(&mut products);
        assert!(facts.len() >= 10, "two pairs of five facts: {facts:?}");
        for bv1 in -3..4 {
            for bv2 in -3..4 {
                for sv in [-5, -1, 0, 1, 7] {
                    for wv in [-2, 0, 3] {
                        let value = |v: &Var| -> Option<i64> {
                            Some(match &*v.name {
                                "blockIdx.y#1" => bv1,
                                "blockIdx.y#2" => bv2,
                                "S" => sv,
                                "w" => wv,
                                _ => return None,
                            })
                        };
                        let of = |f: &Expr| eval_expr(f, &value, false);
                        let look = |v: &Var| -> Option<i64> {
                            value(v).or_else(|| {
                                let (factors, _) = products.iter().find(|(_, u)| *u == v)?;
                                factors
                                    .iter()
                                    .map(of)
                                    .try_fold(1i64, |acc, f| Some(acc * f?))
                            })
                        };
                        for fact in &facts {
                            assert_eq!(
                                eval_expr(fact, &look, false),
                                Some(1),
                                "{fact:?} at b1 = {bv1}, b2 = {bv2}, S = {sv}, w = {wv}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn products_apart_in_more_than_one_factor_get_no_facts() {
        let f = |n: &str| var(n, VarKind::Param { lo: 0, hi: 9 });
        assert!(one_factor_apart(&[f("a"), f("b")], &[f("c"), f("d")]).is_none());
        assert!(one_factor_apart(&[f("a"), f("b")], &[f("a"), f("b"), f("c")]).is_none());
        let (x1, x2, common) =
            one_factor_apart(&[f("a"), f("s")], &[f("b"), f("s")]).expect("one factor apart");
        assert_eq!((x1, x2, common), (f("a"), f("b"), vec![f("s")]));
    }
}
