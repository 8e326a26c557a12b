//! When the model's arithmetic is the machine's, for the values two
//! threads write (`benign-race`). The model computes with mathematical
//! integers; the GPU with 32- or 64-bit words that wrap (`unsigned s =
//! base + t; s < base` is true once the sum carries), in types the model
//! does not keep. Two written values are equal on the machine when
//!
//! * they are the same expression of the same inputs (every variable one
//!   both threads share): one deterministic computation, whatever the
//!   arithmetic; or
//! * they are equal in the model and every intermediate value lies in
//!   `0..2^31`, where `int`, `unsigned`, `long` and `unsigned long` all
//!   hold it exactly, so no operation wrapped or was read with another
//!   sign: the model's value is the machine's. An operation that is not
//!   modular (a division, a comparison, a shift right, a minimum) must
//!   also have its constant operands in that range (`x / -1` divides by
//!   4294967295 when `x` is unsigned).
//!
//! Otherwise the model claims no equality (a `data-race`).
//! Floating-point values are unknowns of the model (`frontend::lower`),
//! equal only as the same unknown.

use crate::model::*;
use std::collections::HashSet;

/// The largest value every integer type of 32 bits or more holds exactly.
const EXACT_MAX: i64 = i32::MAX as i64;

/// At most this many intermediate values are constrained per written value;
/// a larger value gets no range claim (no equality but the syntactic one).
const MAX_TERMS: usize = 64;

/// The condition (over the model's variables) under which `e`'s value in
/// the model is its value on the machine, or `None` when the model cannot
/// state one.
pub(super) fn machine_exact(e: &Expr) -> Option<Expr> {
    let mut terms: Vec<Expr> = Vec::new();
    let mut seen: HashSet<u64> = HashSet::new();
    let mut ok = true;
    e.any_node(&mut |n| {
        let const_ok = |x: &Expr| x.as_const().is_none_or(|c| (0..=EXACT_MAX).contains(&c));
        match n {
            Expr::Const(_) => {}
            Expr::Bin(op, a, b) => {
                let modular = matches!(
                    op,
                    BinOp::Add
                        | BinOp::Sub
                        | BinOp::Mul
                        | BinOp::Shl
                        | BinOp::BitAnd
                        | BinOp::BitOr
                        | BinOp::BitXor
                        | BinOp::And
                        | BinOp::Or
                );
                if !(modular || const_ok(a) && const_ok(b)) {
                    ok = false;
                }
            }
            _ => {}
        }
        // A truth value is 0 or 1 on the machine too.
        if !n.is_boolean() && n.as_const().is_none() && seen.insert(n.digest()) {
            terms.push(n.clone());
        }
        !ok || terms.len() > MAX_TERMS
    });
    if !ok || terms.len() > MAX_TERMS {
        return None;
    }
    Some(Expr::all(terms.into_iter().map(|t| {
        Expr::and(
            Expr::bin(BinOp::Ge, t.clone(), Expr::Const(0)),
            Expr::bin(BinOp::Le, t, Expr::Const(EXACT_MAX)),
        )
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str, lo: i64, hi: i64) -> Expr {
        Expr::Var(Var::new(name, VarKind::Param { lo, hi }))
    }

    #[test]
    fn constants_are_exact() {
        assert_eq!(machine_exact(&Expr::Const(-1)), Some(Expr::tru()));
    }

    #[test]
    fn a_carry_is_a_term_out_of_range() {
        let base = var("base", 0, u32::MAX as i64);
        let sum = Expr::add(
            base.clone(),
            Expr::Var(Var::new("threadIdx.x", VarKind::ThreadIdx(0))),
        );
        let carry = Expr::bin(BinOp::Lt, sum.clone(), base);
        let exact = machine_exact(&carry).expect("a condition");
        // The sum itself must stay below 2^31.
        let text = exact.to_string();
        assert!(text.contains(&format!("{sum}")), "{text}");
    }

    #[test]
    fn negative_divisor_has_no_claim() {
        let x = var("x", 0, 100);
        assert_eq!(
            machine_exact(&Expr::bin(BinOp::Div, x.clone(), Expr::Const(-1))),
            None
        );
        assert!(machine_exact(&Expr::bin(BinOp::Add, x, Expr::Const(-1))).is_some());
    }
}
