//! A race's thresholds on the kernel's parameters (`verify::param_bounds`)
//! as C text and as the model's assumption: the condition `C` the finding
//! states ("races only when `width < 16`") and its negation, the
//! precondition a quick-fix assumes (`__requires(width >= 16)`). The
//! driver (`fixes`) states `C` only once the kernel, assumed outside it,
//! verified free of the race.

use crate::model::Expr;
use crate::verify::param_bounds::ParamBound;

/// `C`: every parameter inside its thresholds (`width < 16 && n > 0`).
pub(crate) fn condition_text(bounds: &[ParamBound]) -> String {
    let one = |b: &ParamBound| {
        let p = &b.var.name;
        match (b.above, b.below) {
            (Some(a), Some(u)) if u == a + 2 => format!("{p} == {}", a + 1),
            (Some(a), Some(u)) => format!("{p} > {a} && {p} < {u}"),
            (Some(a), None) => format!("{p} > {a}"),
            (None, Some(u)) => format!("{p} < {u}"),
            (None, None) => "true".to_string(),
        }
    };
    bounds.iter().map(one).collect::<Vec<_>>().join(" && ")
}

/// `!C` as C text, with no negation left (`width >= 16 || n <= 0`).
pub(crate) fn assumption_text(bounds: &[ParamBound]) -> String {
    let one = |b: &ParamBound| {
        let p = &b.var.name;
        match (b.above, b.below) {
            (Some(a), Some(u)) if u == a + 2 => format!("{p} != {}", a + 1),
            (Some(a), Some(u)) => format!("{p} <= {a} || {p} >= {u}"),
            (Some(a), None) => format!("{p} <= {a}"),
            (None, Some(u)) => format!("{p} >= {u}"),
            (None, None) => "false".to_string(),
        }
    };
    bounds.iter().map(one).collect::<Vec<_>>().join(" || ")
}

/// `!C` as the model's assumption (the same expression the text states).
pub(crate) fn assumption_expr(bounds: &[ParamBound]) -> Expr {
    crate::verify::param_bounds::outside(bounds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Var, VarKind};

    fn bound(name: &str, above: Option<i64>, below: Option<i64>) -> ParamBound {
        ParamBound {
            var: Var::new(
                name,
                VarKind::Param {
                    lo: i32::MIN as i64,
                    hi: i32::MAX as i64,
                },
            ),
            above,
            below,
        }
    }

    #[test]
    fn a_condition_and_its_assumption_are_negations_in_c() {
        let b = vec![bound("width", None, Some(16)), bound("n", Some(0), None)];
        assert_eq!(condition_text(&b), "width < 16 && n > 0");
        assert_eq!(assumption_text(&b), "width >= 16 || n <= 0");
        let b = vec![bound("k", Some(3), Some(5)), bound("m", Some(-1), Some(8))];
        assert_eq!(condition_text(&b), "k == 4 && m > -1 && m < 8");
        assert_eq!(assumption_text(&b), "k != 4 || m <= -1 || m >= 8");
    }

    #[test]
    fn the_assumption_holds_exactly_outside_the_condition() {
        let b = vec![bound("n", Some(-3), Some(16))];
        let e = assumption_expr(&b);
        for n in -10..30 {
            let v = crate::verify::replay::eval_expr(
                &e,
                &|v: &Var| (&*v.name == "n").then_some(n),
                false,
            );
            assert_eq!(v.map(|x| x != 0), Some(!(-3 < n && n < 16)), "n = {n}");
        }
    }
}
