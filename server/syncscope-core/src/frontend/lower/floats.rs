//! Floating-point values. The model's expressions are integers with
//! mathematical semantics, which floating point does not have: `v != v`
//! holds for a NaN, `v - v` is NaN for an infinity, `x * 0` is `-0` or
//! NaN, `(a + b) + c` and `a + (b + c)` round differently. So a value of a
//! floating-point type is never an expression the model could simplify or
//! reason about as an integer: it is an unknown (its scope the widest of
//! its inputs', so a value every thread of a block computes from the same
//! inputs stays one value for the block: floating-point operations are
//! deterministic), and a comparison of floating-point values is an unknown
//! boolean of the same scope. Integer values keep their exact model.
//!
//! What is floating point is known from where values come from: literals
//! (`0.5f`, `1e3`), reads from arrays of a floating-point element type,
//! parameters and locals declared `float`/`double`/`half`, casts and
//! functional casts to those types, and arithmetic with any of them (C's
//! usual arithmetic conversions). The unknowns standing for such values are
//! remembered (`Lowerer::float_vars`); an expression is floating point when
//! it is one of them or a conditional choosing between them.
//!
//! The same conversions (`convert_scalar`) keep integer types narrower
//! than 32 bits honest: a value stored in an `unsigned char` or `short`
//! that may not fit wraps on the machine, so it becomes an unknown of the
//! type's range unless interval arithmetic shows it fits.
//!
//! `syncscope equiv` (lowering with `Options::track_values`) keeps the
//! operations: its proof treats them as uninterpreted functions and its
//! interpreter as one fixed interpretation, so it needs their structure.

use super::*;

/// Whether a C type names a floating-point scalar.
pub(super) fn is_float_type(ty: &str) -> bool {
    let words: Vec<&str> = ty
        .split(|c: char| c.is_whitespace() || c == '&')
        .filter(|w| !w.is_empty() && !matches!(*w, "const" | "volatile" | "__restrict__"))
        .collect();
    matches!(
        words.as_slice(),
        ["float"]
            | ["double"]
            | ["long", "double"]
            | ["half"]
            | ["__half"]
            | ["__nv_bfloat16"]
            | ["nv_bfloat16"]
            | ["float32_t"]
            | ["float64_t"]
    )
}

/// Whether a number literal is floating point (`0.5`, `1.f`, `1e3`,
/// `0x1p-3`), as opposed to an integer (`10`, `0x1F`, `7u`).
pub(super) fn is_float_literal(text: &str) -> bool {
    let t = text.trim().replace('\'', "").to_ascii_lowercase();
    if let Some(hex) = t.strip_prefix("0x") {
        return hex.contains(['.', 'p']);
    }
    t.contains(['.', 'e']) || t.ends_with('f')
}

impl Lowerer<'_, '_> {
    /// Whether floating-point values are opaque in this lowering (not for
    /// `syncscope equiv`, see the module's comment).
    fn floats_opaque(&self) -> bool {
        !self.track_values
    }

    /// Whether `e` is a floating-point value.
    pub(super) fn is_float(&self, e: &Expr) -> bool {
        match e {
            Expr::Var(v) => self.float_vars.contains(&v.name),
            Expr::Ite(_, a, b) => self.is_float(a) || self.is_float(b),
            _ => false,
        }
    }

    /// Remembers the variable `e` (if it is one) as a floating-point value.
    pub(super) fn mark_float(&mut self, e: Expr) -> Expr {
        if let Expr::Var(v) = &e {
            self.float_vars.insert(v.name.clone());
        }
        e
    }

    /// A floating-point literal: a grid-uniform unknown of its own (as
    /// before floats were typed: the model claims no equality between two
    /// occurrences, nor between iterations, and `syncscope equiv` reads the
    /// literal's value from its name).
    pub(super) fn float_literal(&mut self, text: &str) -> Expr {
        let v = self.fresh_unknown(text, Scope::Grid);
        // One literal has one value at every iteration.
        self.record_site(&v, Vec::new());
        self.mark_float(v)
    }

    /// The widest scope of `operands`.
    fn operands_scope(operands: &[&Expr]) -> Scope {
        operands
            .iter()
            .map(|e| e.scope())
            .max()
            .unwrap_or(Scope::Grid)
    }

    /// An unknown standing for a result computed from `operands`: a fresh
    /// value (its origin is the operands, already tracked by the model)
    /// unless an operand is an atomic's kept result, which the schedule
    /// checks would then no longer see used.
    fn derived_unknown(&mut self, base: &str, operands: &[&Expr], boolean: bool) -> Expr {
        let scope = Self::operands_scope(operands);
        let results: Vec<Var> = self
            .atomic_ops
            .iter()
            .filter_map(|o| o.result.clone())
            .collect();
        if operands
            .iter()
            .any(|e| e.mentions(&mut |v| results.contains(v)))
        {
            self.note_unknown_after_atomic();
        }
        let v = if boolean {
            let tag = self.iteration_tag();
            let n = self.unknown_counts.entry(base.to_string()).or_insert(0);
            let name = symbols::fresh(base, *n, &tag);
            *n += 1;
            Expr::Var(Var::new(
                name,
                VarKind::Unknown {
                    scope,
                    lo: 0,
                    hi: 1,
                },
            ))
        } else {
            self.fresh_value(base, scope)
        };
        self.record_site(&v, operands.iter().map(|e| (*e).clone()).collect());
        v
    }

    /// Records the unknown `v` as the value of the operation at this place
    /// of the code applied to `operands` (`Function::Site`): floating-point
    /// operations, conversions and literals are deterministic, so equal
    /// operands give one result, which is all the same-value check of two
    /// writes may conclude from it.
    pub(super) fn record_site(&mut self, v: &Expr, operands: Vec<Expr>) {
        // A dry run reuses the names its real run gives, over other
        // operands (a loop's symbolic entry values): only the real one
        // says what the name computes.
        if self.dry > 0 {
            return;
        }
        if let Expr::Var(var) = v {
            let site = symbols::split_iteration_tag(&var.name)
                .map_or(&*var.name, |(base, _)| base)
                .to_string();
            self.applications.push(Application {
                value: var.clone(),
                function: Function::Site(site),
                args: operands,
            });
        }
    }

    /// A vector built by a constructor without a body in sight
    /// (`make_float4(x, y, z, w)`, `make_float4(v, 1.0f)`): one value, the
    /// constructor's at this place of the code (`Function::Site`), so equal
    /// members make equal vectors. Like a float it is opaque to arithmetic
    /// (`helper_math.h`'s operators are not integer algebra). `None` when
    /// values are tracked (`syncscope equiv`) or a member is no value of
    /// the model (a pointer, an object): the opaque call's rules apply.
    pub(super) fn vector_value(&mut self, name: &str, args: &[Node]) -> Option<Value> {
        if !self.floats_opaque()
            || args.is_empty()
            || args
                .iter()
                .any(|a| self.is_address_of(*a) || self.object_path(*a).is_some())
        {
            return None;
        }
        let mut members = Vec::new();
        for a in args {
            match self.eval(*a) {
                Value::Int(e) => members.push(e),
                // Evaluated already: what the opaque call would make of it.
                _ => {
                    let v = self.fresh_unknown(&format!("{UNSEEN_PREFIX}{name}"), Scope::Thread);
                    return Some(Value::Int(v));
                }
            }
        }
        let refs: Vec<&Expr> = members.iter().collect();
        let v = self.derived_unknown(name, &refs, false);
        Some(Value::Int(self.mark_float(v)))
    }

    /// `a op b` where an operand is floating point (C converts the other):
    /// a comparison is an unknown boolean, arithmetic an unknown
    /// floating-point value. `None` when floats are not opaque here or no
    /// operand is floating point (integer arithmetic).
    pub(super) fn float_binary(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Option<Expr> {
        if !self.floats_opaque() || !(self.is_float(a) || self.is_float(b)) {
            return None;
        }
        Some(match op {
            // `&&`/`||` take truth values, whatever the operands' type.
            BinOp::And | BinOp::Or => return None,
            // A value compared with itself: `<` and `>` are false for
            // every value, NaN included; `==`, `<=`, `>=` hold unless it
            // is NaN, `!=` only then.
            BinOp::Lt | BinOp::Gt if a == b => Expr::fals(),
            BinOp::Eq | BinOp::Le | BinOp::Ge if a == b => Expr::not(self.is_nan(a)),
            BinOp::Ne if a == b => self.is_nan(a),
            _ if op.is_comparison() => {
                self.derived_unknown(&format!("float{}", op.symbol()), &[a, b], true)
            }
            _ => {
                let v = self.derived_unknown(&format!("float{}", op.symbol()), &[a, b], false);
                self.mark_float(v)
            }
        })
    }

    /// Whether the floating-point value `a` is NaN: one unknown boolean per
    /// value the model names (so `v != v` and `v == v` exclude each other),
    /// of that value's scope.
    fn is_nan(&mut self, a: &Expr) -> Expr {
        match a {
            Expr::Var(v) => Expr::Var(Var::new(
                symbols::is_nan(&v.name),
                VarKind::Unknown {
                    scope: v.scope(),
                    lo: 0,
                    hi: 1,
                },
            )),
            _ => self.derived_unknown("isnan", &[a], true),
        }
    }

    /// `-a` of a floating-point `a` (`-0.0` is not `0.0`, `-(-x)` need not be
    /// `x` for the model's purposes): an unknown floating-point value.
    pub(super) fn float_negation(&mut self, a: &Expr) -> Option<Expr> {
        if !self.floats_opaque() || !self.is_float(a) {
            return None;
        }
        let v = self.derived_unknown("float-", &[a], false);
        Some(self.mark_float(v))
    }

    /// The truth of a floating-point value in a condition (`if (x)`): `x !=
    /// 0` in IEEE terms (NaN is true, `-0.0` false), an unknown boolean.
    pub(super) fn float_truth(&mut self, e: &Expr) -> Option<Expr> {
        if !self.floats_opaque() || !self.is_float(e) {
            return None;
        }
        Some(self.derived_unknown("float!=0", &[e], true))
    }

    /// A value converted to the type `ty`: to a floating-point type, an
    /// integer becomes a floating-point value (`float h = t; h / 2` divides
    /// in floating point); to an integer type, a floating-point value
    /// becomes an integer of the same scope (truncation, not the model's
    /// identity), and so does an integer that may not fit a type narrower
    /// than 32 bits. Anything else is left as it is.
    pub(super) fn convert_scalar(&mut self, ty: &str, e: Expr) -> Expr {
        if !self.floats_opaque() {
            return e;
        }
        let to_float = is_float_type(ty);
        let to_int = !to_float && int_range(ty).is_some();
        if to_float && !self.is_float(&e) {
            return match &e {
                // A value of no type the model knows (a shuffle's result, an
                // atomic's): it is the floating-point value itself. Not a
                // local's value at a loop's entry (`@entry:`), whose type
                // is the local's: marking it would make the integer counter
                // of `for (int i = ..; ..; i += s) f((float)i)` a float, so
                // its update no induction and its guard an unknown.
                Expr::Var(v)
                    if !super::loops::is_entry(v)
                        && matches!(
                            v.kind,
                            VarKind::Unknown {
                                lo: i64::MIN,
                                hi: i64::MAX,
                                ..
                            }
                        ) =>
                {
                    self.mark_float(e)
                }
                Expr::Const(c) => self.float_literal(&format!("({ty}){c}")),
                _ => {
                    let v = self.derived_unknown(&format!("({})", ty.trim()), &[&e], false);
                    self.mark_float(v)
                }
            };
        }
        if to_int && self.is_float(&e) {
            let (lo, hi) = int_range(ty).unwrap_or((i64::MIN, i64::MAX));
            let scope = e.scope();
            let v = self.fresh_value_in(&format!("({})", ty.trim()), scope, (lo, hi));
            self.record_site(&v, vec![e]);
            return v;
        }
        // A type narrower than 32 bits (`unsigned char c = base + t;`)
        // wraps a value outside its range: the model's value is the
        // machine's only when it provably fits, else an unknown of the
        // type's range (never a wrapped value read as the unwrapped one).
        if let Some((lo, hi)) =
            int_range(ty).filter(|&(lo, hi)| (hi as i128 - lo as i128) < u32::MAX as i128)
        {
            if ty.trim() != "bool" && !value_range(&e).is_some_and(|(a, b)| lo <= a && b <= hi) {
                let scope = e.scope();
                let v = self.fresh_value_in(&format!("({})", ty.trim()), scope, (lo, hi));
                self.record_site(&v, vec![e]);
                return v;
            }
        }
        e
    }

    /// The arrays among the first `count` whose declared element type is a
    /// scalar (floating point or an integer type the model knows).
    pub(super) fn scalar_arrays(&self, count: usize) -> Vec<ArrayId> {
        (0..count)
            .filter(|id| {
                self.elem_types.get(id).is_some_and(|t| {
                    let t = t.trim_end_matches(|c: char| c == '*' || c.is_whitespace());
                    is_float_type(t) || super::kernel::int_range(t).is_some()
                })
            })
            .collect()
    }

    /// Whether the array `array` (seen without a view of other bytes) holds
    /// floating-point elements.
    pub(super) fn float_elements(&self, array: ArrayId) -> bool {
        self.elem_types.get(&array).is_some_and(|t| {
            let t = t.trim_end_matches(|c: char| c == '*' || c.is_whitespace());
            is_float_type(t)
        })
    }
}

/// Bounds of an integer expression's value, where simple interval
/// arithmetic finds them.
fn value_range(e: &Expr) -> Option<(i64, i64)> {
    Some(match e {
        Expr::Const(c) => (*c, *c),
        Expr::Var(v) => match v.kind {
            VarKind::ThreadIdx(_) => (0, 1023),
            VarKind::BlockDim(_) => (1, 1024),
            VarKind::Param { lo, hi } | VarKind::Unknown { lo, hi, .. } => (lo, hi),
            _ => return None,
        },
        Expr::Bin(op, a, b) => {
            let (al, ah) = value_range(a)?;
            match (op, b.as_const()) {
                (BinOp::BitAnd, Some(c)) if c >= 0 && al >= 0 => (0, c.min(ah)),
                (BinOp::Rem, Some(c)) if c > 0 && al >= 0 => (0, (c - 1).min(ah)),
                (BinOp::Shr | BinOp::Div, Some(c)) if c > 0 && al >= 0 => {
                    let d = if *op == BinOp::Shr {
                        1i64 << u32::try_from(c).ok().filter(|&s| s < 63)?
                    } else {
                        c
                    };
                    (al / d, ah / d)
                }
                _ => {
                    let (bl, bh) = value_range(b)?;
                    match op {
                        BinOp::Add => (al.checked_add(bl)?, ah.checked_add(bh)?),
                        BinOp::Sub => (al.checked_sub(bh)?, ah.checked_sub(bl)?),
                        BinOp::Min => (al.min(bl), ah.min(bh)),
                        BinOp::Max => (al.max(bl), ah.max(bh)),
                        _ if op.is_boolean() => (0, 1),
                        _ => return None,
                    }
                }
            }
        }
        Expr::Un(UnOp::Not, _) => (0, 1),
        Expr::Ite(_, a, b) => {
            let (al, ah) = value_range(a)?;
            let (bl, bh) = value_range(b)?;
            (al.min(bl), ah.max(bh))
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floating_point_types() {
        for t in [
            "float",
            "const float",
            "double",
            "long double",
            "__half",
            "float &",
        ] {
            assert!(is_float_type(t), "{t}");
        }
        for t in ["int", "unsigned", "float4", "float *", "bool", ""] {
            assert!(!is_float_type(t), "{t}");
        }
    }

    #[test]
    fn floating_point_literals() {
        for t in ["0.5", "1.f", "1e3", "2.0F", "0x1p-3", ".5"] {
            assert!(is_float_literal(t), "{t}");
        }
        for t in ["10", "0x1F", "7u", "0xef", "1'000"] {
            assert!(!is_float_literal(t), "{t}");
        }
    }
}
