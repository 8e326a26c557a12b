//! A linear over-approximation of a query Z3 gave up on: every product of
//! two or more run-time values (`blockIdx.x * blockDim.x`, `k * gridDim.x *
//! blockDim.x`) becomes one fresh unknown, the same unknown wherever the
//! same product appears, after the arithmetic is expanded into sums of
//! products. Any model of the query gives one of the abstraction (each
//! unknown set to its product's value), so an unsatisfiable abstraction
//! proves the query unsatisfiable; a satisfiable one proves nothing and is
//! never used as a witness.
//!
//! A conjunct `v % c == 0` of the query (a launch fact such as `blockDim.x %
//! 32 == 0`) first writes `v` as `c * v'`, so the products keep the factor:
//! `b * blockDim.x + t` becomes `32 * p + t`, and two lanes of one warp
//! compare alike against a multiple of 32 in linear arithmetic.
//! Mathematical integers only: the caller does not use it under
//! `--bitvector`.

use crate::model::*;
use std::collections::BTreeMap;

/// A sum of products: each key the sorted factors of one product (empty:
/// the constant term), each value its coefficient.
type Poly = BTreeMap<Vec<Expr>, i64>;

/// The most addends an expanded expression may have: beyond it the query
/// is left as it was.
const MAX_TERMS: usize = 64;

/// The abstraction of the conjunction `query`, or `None` when it has no
/// product to abstract (it would be the same query) or grows too large.
pub(super) fn abstract_products(query: &[Expr]) -> Option<Vec<Expr>> {
    abstract_products_keeping(query).map(|a| a.query)
}

/// A query with its products abstracted, and what each unknown stands for.
pub(super) struct Abstracted {
    pub query: Vec<Expr>,
    /// Each abstracted product: its sorted factors (in the abstraction's
    /// own terms: a multiple's factor already `c * v'`) and its unknown.
    pub products: BTreeMap<Vec<Expr>, Var>,
}

/// [`abstract_products`], keeping the products' unknowns, for facts about
/// them that hold over the integers (`product_orders`).
pub(super) fn abstract_products_keeping(query: &[Expr]) -> Option<Abstracted> {
    let mut multiples = BTreeMap::new();
    let mut constants = BTreeMap::new();
    for e in query {
        collect_facts(e, &mut multiples, &mut constants);
    }
    let mut a = Abstraction {
        constants,
        multiples: multiples
            .into_iter()
            .map(|(v, c)| {
                let name = format!("{}#multiple_of_{c}", v.name);
                let whole = Var::new(name, unbounded());
                (v, (c, whole))
            })
            .collect(),
        products: BTreeMap::new(),
        failed: false,
    };
    let mut out: Vec<Expr> = query.iter().map(|e| a.rewrite(e)).collect();
    if a.failed || a.products.is_empty() {
        // Nothing nonlinear was left to abstract: the same query.
        return None;
    }
    for (v, (c, whole)) in &a.multiples {
        out.push(Expr::eq(
            Expr::Var(v.clone()),
            Expr::mul(Expr::Const(*c), Expr::Var(whole.clone())),
        ));
    }
    Some(Abstracted {
        query: out,
        products: a.products,
    })
}

/// The unknown a product abstracts into, named as [`abstract_products`]
/// names its own (`product#<n>`, `n` the count so far).
pub(super) fn product_unknown(n: usize) -> Var {
    Var::new(format!("product#{n}"), unbounded())
}

fn unbounded() -> VarKind {
    VarKind::Unknown {
        scope: Scope::Thread,
        lo: i64::MIN,
        hi: i64::MAX,
    }
}

/// The conjunctions' facts `v % c == 0` (or `0 == v % c`) with `c > 1`, and
/// `v == c` (`blockDim.y == 1`: a product with it is no product).
fn collect_facts(e: &Expr, out: &mut BTreeMap<Var, i64>, constants: &mut BTreeMap<Var, i64>) {
    match e {
        Expr::Bin(BinOp::And, a, b) => {
            collect_facts(a, out, constants);
            collect_facts(b, out, constants);
        }
        Expr::Bin(BinOp::Eq, a, b) => {
            match (&**a, &**b) {
                (Expr::Var(v), Expr::Const(c)) | (Expr::Const(c), Expr::Var(v)) => {
                    constants.insert(v.clone(), *c);
                    return;
                }
                _ => {}
            }
            let (rem, zero) = if b.as_const() == Some(0) {
                (a, b)
            } else {
                (b, a)
            };
            if zero.as_const() != Some(0) {
                return;
            }
            if let Expr::Bin(BinOp::Rem, v, c) = &**rem {
                if let (Expr::Var(v), Some(c)) = (&**v, c.as_const()) {
                    if c > 1 {
                        // Two facts on one variable: their least common
                        // multiple is not needed, the larger one is kept.
                        let e = out.entry(v.clone()).or_insert(c);
                        *e = (*e).max(c);
                    }
                }
            }
        }
        _ => {}
    }
}

struct Abstraction {
    /// `v` → `c` with `v == c` a conjunct of the query.
    constants: BTreeMap<Var, i64>,
    /// `v` → (`c`, `v'`) with `v == c * v'`.
    multiples: BTreeMap<Var, (i64, Var)>,
    /// Each product abstracted → its unknown.
    products: BTreeMap<Vec<Expr>, Var>,
    failed: bool,
}

impl Abstraction {
    /// The value a conjunct fixes `v` to; a thread (block) index is 0 along
    /// a dimension whose block (grid) size is fixed to 1.
    fn constant(&self, v: &Var) -> Option<i64> {
        if let Some(c) = self.constants.get(v) {
            return Some(*c);
        }
        let size = match v.kind {
            VarKind::ThreadIdx(d) => VarKind::BlockDim(d),
            VarKind::BlockIdx(d) => VarKind::GridDim(d),
            _ => return None,
        };
        self.constants
            .iter()
            .any(|(s, c)| s.kind == size && *c == 1)
            .then_some(0)
    }

    /// `e` with its arithmetic expanded and its products abstracted.
    fn rewrite(&mut self, e: &Expr) -> Expr {
        if is_arithmetic(e) {
            return match self.poly(e) {
                Some(p) => self.expr_of(&p),
                None => {
                    self.failed = true;
                    e.clone()
                }
            };
        }
        match e {
            Expr::Const(_) => e.clone(),
            Expr::Var(v) => match (self.constant(v), self.multiples.get(v)) {
                (Some(c), _) => Expr::Const(c),
                (None, Some((c, whole))) => Expr::mul(Expr::Const(*c), Expr::Var(whole.clone())),
                (None, None) => e.clone(),
            },
            Expr::Un(op, a) => Expr::un(*op, self.rewrite(a)),
            Expr::Bin(op, a, b) => {
                let (a, b) = (self.rewrite(a), self.rewrite(b));
                Expr::bin(*op, a, b)
            }
            Expr::Ite(c, a, b) => {
                let (c, a, b) = (self.rewrite(c), self.rewrite(a), self.rewrite(b));
                Expr::ite(c, a, b)
            }
            Expr::Pow2(a) => Expr::Pow2(std::sync::Arc::new(self.rewrite(a))),
        }
    }

    /// `e` as a sum of products; an operand that is not a sum, difference,
    /// negation or product is one factor (its own operands rewritten).
    fn poly(&mut self, e: &Expr) -> Option<Poly> {
        let p = match e {
            Expr::Const(c) => Poly::from([(Vec::new(), *c)]),
            Expr::Var(v) => match (self.constant(v), self.multiples.get(v)) {
                (Some(c), _) => Poly::from([(Vec::new(), c)]),
                (None, Some((c, whole))) => Poly::from([(vec![Expr::Var(whole.clone())], *c)]),
                (None, None) => Poly::from([(vec![e.clone()], 1)]),
            },
            Expr::Bin(BinOp::Add, a, b) => add(&self.poly(a)?, &self.poly(b)?, 1)?,
            Expr::Bin(BinOp::Sub, a, b) => add(&self.poly(a)?, &self.poly(b)?, -1)?,
            Expr::Un(UnOp::Neg, a) => add(&Poly::new(), &self.poly(a)?, -1)?,
            Expr::Bin(BinOp::Mul, a, b) => mul(&self.poly(a)?, &self.poly(b)?)?,
            other => Poly::from([(vec![self.rewrite(other)], 1)]),
        };
        (p.len() <= MAX_TERMS).then_some(p)
    }

    fn expr_of(&mut self, p: &Poly) -> Expr {
        let mut sum = Expr::Const(0);
        for (factors, coef) in p {
            let term = match factors.len() {
                0 => Expr::Const(*coef),
                1 => Expr::mul(Expr::Const(*coef), factors[0].clone()),
                _ => {
                    let n = self.products.len();
                    let v = self
                        .products
                        .entry(factors.clone())
                        .or_insert_with(|| product_unknown(n));
                    Expr::mul(Expr::Const(*coef), Expr::Var(v.clone()))
                }
            };
            sum = Expr::add(sum, term);
        }
        sum
    }
}

fn is_arithmetic(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Bin(BinOp::Add | BinOp::Sub | BinOp::Mul, ..) | Expr::Un(UnOp::Neg, _)
    )
}

/// `a + sign * b`.
fn add(a: &Poly, b: &Poly, sign: i64) -> Option<Poly> {
    let mut out = a.clone();
    for (k, c) in b {
        let e = out.entry(k.clone()).or_insert(0);
        *e = e.checked_add(c.checked_mul(sign)?)?;
    }
    out.retain(|_, c| *c != 0);
    Some(out)
}

fn mul(a: &Poly, b: &Poly) -> Option<Poly> {
    if a.len().checked_mul(b.len())? > MAX_TERMS * MAX_TERMS {
        return None;
    }
    let mut out = Poly::new();
    for (ka, ca) in a {
        for (kb, cb) in b {
            let mut k: Vec<Expr> = ka.iter().chain(kb).cloned().collect();
            k.sort();
            let e = out.entry(k).or_insert(0);
            *e = e.checked_add(ca.checked_mul(*cb)?)?;
        }
    }
    out.retain(|_, c| *c != 0);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str, kind: VarKind) -> Expr {
        Expr::Var(Var::new(name, kind))
    }

    #[test]
    fn shared_products_become_one_unknown_and_multiples_keep_their_factor() {
        let b = var("blockIdx.x", VarKind::BlockIdx(0));
        let dim = var("blockDim.x", VarKind::BlockDim(0));
        let t1 = var("threadIdx.x#1", VarKind::ThreadIdx(0));
        let t2 = var("threadIdx.x#2", VarKind::ThreadIdx(0));
        let fact = Expr::eq(
            Expr::bin(BinOp::Rem, dim.clone(), Expr::Const(32)),
            Expr::Const(0),
        );
        let x1 = Expr::add(Expr::mul(b.clone(), dim.clone()), t1);
        let x2 = Expr::add(Expr::mul(dim.clone(), b.clone()), t2);
        let query = vec![
            fact,
            Expr::bin(BinOp::Lt, x1, Expr::Const(64)),
            Expr::bin(BinOp::Ge, x2, Expr::Const(64)),
        ];
        let out = abstract_products(&query).expect("a product to abstract");
        // The same product in both threads' indices is the same unknown,
        // scaled by the multiple's factor; the link `v == 32 * v'` is added.
        let text = format!("{out:?}");
        assert_eq!(text.matches("product#0").count(), 2, "{text}");
        assert!(!text.contains("product#1"), "{text}");
        assert_eq!(out.len(), 4);
        assert!(matches!(&out[3], Expr::Bin(BinOp::Eq, v, _) if **v == dim));
    }

    #[test]
    fn a_query_without_products_is_left_alone() {
        let t = var("threadIdx.x", VarKind::ThreadIdx(0));
        let q = vec![Expr::bin(
            BinOp::Lt,
            Expr::add(t, Expr::Const(1)),
            Expr::Const(3),
        )];
        assert!(abstract_products(&q).is_none());
    }
}
