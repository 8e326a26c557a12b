//! Index algebra for the proof when an index is not written in the shapes
//! the syntactic rules expect: a loop's counter adds a row (`(y + j) * w +
//! x`, `x + y * w + i * w`), so the row-major digits and the thread that
//! writes a cell come from the index as a polynomial. Every result is a
//! guess that a query checks (a digit lemma is valid whatever the guess: it
//! holds under its own range condition); nothing here decides a verdict.

use crate::model::{BinOp, Expr, Var, VarKind};
use std::collections::BTreeMap;

/// A polynomial: monomials (the variables multiplied, sorted) to their
/// coefficients.
type Poly = BTreeMap<Vec<Var>, i64>;

fn poly(e: &Expr) -> Option<Poly> {
    let add = |mut p: Poly, q: Poly, sign: i64| {
        for (m, c) in q {
            *p.entry(m).or_insert(0) += sign * c;
        }
        p.retain(|_, c| *c != 0);
        p
    };
    Some(match e {
        Expr::Const(c) => [(Vec::new(), *c)]
            .into_iter()
            .filter(|x| x.1 != 0)
            .collect(),
        Expr::Var(v) => [(vec![v.clone()], 1)].into(),
        Expr::Bin(BinOp::Add, x, y) => add(poly(x)?, poly(y)?, 1),
        Expr::Bin(BinOp::Sub, x, y) => add(poly(x)?, poly(y)?, -1),
        Expr::Bin(BinOp::Mul, x, y) => {
            let (p, q) = (poly(x)?, poly(y)?);
            let mut out = Poly::new();
            for (mp, cp) in &p {
                for (mq, cq) in &q {
                    let mut m: Vec<Var> = mp.iter().chain(mq).cloned().collect();
                    m.sort();
                    *out.entry(m).or_insert(0) += cp.checked_mul(*cq)?;
                }
            }
            out.retain(|_, c| *c != 0);
            out
        }
        Expr::Un(crate::model::UnOp::Neg, x) => add(Poly::new(), poly(x)?, -1),
        _ => return None,
    })
}

fn expr_of(p: &Poly) -> Expr {
    let mut out: Option<Expr> = None;
    for (m, c) in p {
        let term = m
            .iter()
            .fold(Expr::Const(*c), |t, v| Expr::mul(t, Expr::Var(v.clone())));
        out = Some(match out {
            None => term,
            Some(o) => Expr::add(o, term),
        });
    }
    out.unwrap_or(Expr::Const(0))
}

/// A variable the same for every thread and iteration (a parameter, a
/// launch size not fixed).
fn uniform_var(v: &Var) -> bool {
    !matches!(
        v.kind,
        VarKind::ThreadIdx(_)
            | VarKind::BlockIdx(_)
            | VarKind::Unknown { .. }
            | VarKind::Counter { .. }
    )
}

/// `e` as `X * P + Y` with `P` a parameter (a row length), found in the
/// polynomial: `X` the monomials that have `P` (divided by it), `Y` the
/// rest; `X` must vary. The first such `P` in variable order. (Launch sizes
/// are not taken as rows: `blockIdx.x * blockDim.x + threadIdx.x` keeps
/// the syntactic rules' reading.)
pub(super) fn digits(e: &Expr) -> Option<(Expr, Expr, Expr)> {
    let p = poly(e)?;
    let candidates: Vec<&Var> = p
        .keys()
        .filter(|m| m.iter().any(|v| !uniform_var(v)))
        .flat_map(|m| m.iter().filter(|v| matches!(v.kind, VarKind::Param { .. })))
        .collect();
    let row = candidates.into_iter().min()?.clone();
    let (mut x, mut y) = (Poly::new(), Poly::new());
    for (m, c) in p {
        match m.iter().position(|v| *v == row) {
            Some(i) => {
                let mut rest = m.clone();
                rest.remove(i);
                x.insert(rest, c);
            }
            None => {
                y.insert(m, c);
            }
        }
    }
    if x.keys().all(|m| m.iter().all(uniform_var)) {
        return None;
    }
    Some((expr_of(&x), Expr::Var(row), expr_of(&y)))
}

/// Whether some monomial of `e` that varies has the variable `p` as a
/// factor (`p` a row length left inside a low digit).
pub(super) fn has_factor(e: &Expr, p: &Expr) -> bool {
    let Expr::Var(p) = p else { return false };
    poly(e).is_some_and(|q| {
        q.keys()
            .any(|m| m.contains(p) && m.iter().any(|v| !uniform_var(v)))
    })
}

/// The variables of a linear `e = Σ c_i * v_i + rest` that `solvable`
/// accepts, each as an expression of `target` (mixed-radix digits, the
/// largest coefficient first: `b * 32 + k * 16 + t` is `b = target / 32`,
/// `k = target % 32 / 16`, `t = target % 32 % 16`); `rest` must be uniform.
/// Added to `out` (a variable already there must get the same value).
pub(super) fn invert_linear(
    e: &Expr,
    target: Expr,
    solvable: &dyn Fn(&Var) -> bool,
    out: &mut BTreeMap<Var, Expr>,
) -> bool {
    let Some(p) = poly(e) else { return false };
    let mut terms: Vec<(i64, Var)> = Vec::new();
    let mut rest = Poly::new();
    for (m, c) in p {
        match m.as_slice() {
            [v] if solvable(v) && c > 0 => terms.push((c, v.clone())),
            _ if m.iter().all(uniform_var) => {
                rest.insert(m, c);
            }
            _ => return false,
        }
    }
    if terms.is_empty() {
        return false;
    }
    terms.sort_by_key(|t| std::cmp::Reverse(t.0));
    let mut remainder = Expr::bin(BinOp::Sub, target, expr_of(&rest));
    let last = terms.len() - 1;
    for (i, (c, v)) in terms.into_iter().enumerate() {
        let value = if c == 1 {
            remainder.clone()
        } else {
            Expr::bin(BinOp::Div, remainder.clone(), Expr::Const(c))
        };
        let known = out.get(&v).cloned();
        match known {
            Some(old) if old != value => return false,
            Some(_) => {}
            None => {
                out.insert(v, value);
            }
        }
        if i < last {
            remainder = Expr::bin(BinOp::Rem, remainder, Expr::Const(c));
        }
    }
    true
}
