//! The usual arithmetic conversions of C where the model's mathematical
//! integers would otherwise disagree with the machine: a comparison between
//! a signed 32-bit operand and an `unsigned int` one (`off >= blockDim.x`)
//! compares in unsigned arithmetic, so `off = -1` is the huge `2^32 - 1`.
//!
//! The model has no types, so the operands' C types are read from the
//! syntax: the CUDA coordinates and sizes and `u`-suffixed literals are
//! `unsigned int`, identifiers have the type of their declaration in the
//! enclosing function, casts their target type, and arithmetic follows the
//! promotions. Where a type cannot be read, a negative value of the other
//! side compares either way (wrapped as a 32-bit type, or as is, as a
//! 64-bit signed type would): never only the answer C may not give.

use super::*;

/// The C type of an integer expression, as far as comparisons care.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum IntClass {
    /// `unsigned int` (narrower unsigned types promote to `int`).
    Unsigned32,
    /// `int` or a narrower type promoted to `int`.
    Signed32,
    /// Anything else (64-bit, floating, unknown).
    Other,
}

fn class_of_type(ty: &str) -> IntClass {
    let t = ty.trim().trim_start_matches("const ").trim();
    match t {
        "unsigned" | "unsigned int" | "uint32_t" | "uint" => IntClass::Unsigned32,
        "int" | "signed" | "signed int" | "int32_t" | "short" | "short int" | "int16_t"
        | "unsigned short" | "uint16_t" | "ushort" | "char" | "signed char" | "int8_t"
        | "unsigned char" | "uint8_t" | "uchar" | "bool" => IntClass::Signed32,
        _ => IntClass::Other,
    }
}

/// The declared type of `name` in the function around `at`, if it is a
/// plain (not pointer, not array) parameter or local.
fn declared_type(src: &str, at: Node, name: &str) -> Option<String> {
    let mut f = at.parent();
    while let Some(n) = f {
        if n.kind() == "function_definition" {
            break;
        }
        f = n.parent();
    }
    let f = f?;
    let mut found = None;
    let mut stack = vec![f];
    while let Some(n) = stack.pop() {
        if matches!(n.kind(), "parameter_declaration" | "declaration")
            && n.start_byte() < at.start_byte()
        {
            let ty = n.field("type").map(|t| node_text(src, t).to_string());
            let mut c = n.walk();
            for d in n.children_by_field_name("declarator", &mut c) {
                let plain = match d.kind() {
                    "identifier" => true,
                    "init_declarator" => d
                        .field("declarator")
                        .is_some_and(|x| x.kind() == "identifier"),
                    _ => false,
                };
                if plain && declarator_name(src, d).as_deref() == Some(name) {
                    // Several declarations of one name (shadowing): the
                    // types must agree, else the type is unknown.
                    found = match (found, ty.clone()) {
                        (None, t) => Some(t),
                        (Some(a), b) if a == b => Some(a),
                        _ => Some(None),
                    };
                }
            }
        }
        // Only declarations before `at` count, and a node's descendants
        // start no earlier than it: later subtrees are not walked (a walk
        // of the whole function for every comparison made deeply nested
        // loops quadratic).
        let mut c = n.walk();
        stack.extend(
            n.named_children(&mut c)
                .filter(|ch| ch.start_byte() < at.start_byte()),
        );
    }
    found.flatten()
}

fn class_of(src: &str, node: Node) -> IntClass {
    match node.kind() {
        "parenthesized_expression" => node
            .named_child(0)
            .map_or(IntClass::Other, |n| class_of(src, n)),
        "number_literal" => {
            let t = node_text(src, node).to_ascii_lowercase();
            let hex = t.starts_with("0x");
            let suffix: String = t
                .chars()
                .rev()
                .take_while(|c| *c == 'u' || *c == 'l')
                .collect();
            let float = t.contains('.') || (!hex && (t.contains('e') || t.ends_with('f')));
            if float || suffix.contains('l') {
                IntClass::Other
            } else if suffix.contains('u') {
                IntClass::Unsigned32
            } else {
                // A decimal literal above INT_MAX is `long`, a hexadecimal
                // one `unsigned int`: those are read as unknown.
                match parse_int(&t) {
                    Some(v) if (0..=i64::from(i32::MAX)).contains(&v) => IntClass::Signed32,
                    _ => IntClass::Other,
                }
            }
        }
        "field_expression" => {
            let base = node.field("argument").map(|a| node_text(src, a));
            if matches!(
                base,
                Some("threadIdx" | "blockIdx" | "blockDim" | "gridDim")
            ) {
                IntClass::Unsigned32
            } else {
                IntClass::Other
            }
        }
        "identifier" => {
            let name = node_text(src, node);
            if name == "warpSize" {
                return IntClass::Signed32;
            }
            declared_type(src, node, name).map_or(IntClass::Other, |t| class_of_type(&t))
        }
        "cast_expression" => node
            .field("type")
            .map_or(IntClass::Other, |t| class_of_type(node_text(src, t))),
        "unary_expression" => {
            let op = node.field("operator").map(|o| node_text(src, o));
            match op {
                Some("-" | "+" | "~") => node
                    .field("argument")
                    .map_or(IntClass::Other, |a| class_of(src, a)),
                Some("!") => IntClass::Signed32,
                _ => IntClass::Other,
            }
        }
        "binary_expression" => {
            let op = node.field("operator").map(|o| node_text(src, o));
            match op {
                Some("<" | "<=" | ">" | ">=" | "==" | "!=" | "&&" | "||") => IntClass::Signed32,
                Some("<<" | ">>") => node
                    .field("left")
                    .map_or(IntClass::Other, |l| class_of(src, l)),
                Some(_) => {
                    let side = |f| node.field(f).map_or(IntClass::Other, |n| class_of(src, n));
                    match (side("left"), side("right")) {
                        (IntClass::Other, _) | (_, IntClass::Other) => IntClass::Other,
                        (IntClass::Unsigned32, _) | (_, IntClass::Unsigned32) => {
                            IntClass::Unsigned32
                        }
                        _ => IntClass::Signed32,
                    }
                }
                None => IntClass::Other,
            }
        }
        _ => IntClass::Other,
    }
}

/// A cheap, sufficient test that a model value is never negative (the
/// coordinates and sizes, nonnegative parameters and counters, and their
/// sums and products), so that the common `threadIdx.x < n` keeps its
/// plain form.
fn never_negative(e: &Expr) -> bool {
    match e {
        Expr::Const(c) => *c >= 0,
        Expr::Var(v) => match v.kind {
            VarKind::ThreadIdx(_)
            | VarKind::BlockIdx(_)
            | VarKind::BlockDim(_)
            | VarKind::GridDim(_)
            | VarKind::Counter { .. } => true,
            VarKind::Param { lo, .. } | VarKind::Unknown { lo, .. } => lo >= 0,
            VarKind::Shared => false,
        },
        Expr::Pow2(_) => true,
        Expr::Bin(BinOp::Add | BinOp::Mul | BinOp::Div | BinOp::Shr, a, b) => {
            never_negative(a) && never_negative(b)
        }
        _ => false,
    }
}

/// Bounds `lo..=hi` of a model value, where a cheap interval reading finds
/// them (the launch's coordinates and sizes as the hardware limits them,
/// parameters and unknowns by their ranges, sums and products of them).
fn bounds(e: &Expr) -> Option<(i128, i128)> {
    Some(match e {
        Expr::Const(c) => (i128::from(*c), i128::from(*c)),
        Expr::Var(v) => match v.kind {
            VarKind::ThreadIdx(_) => (0, 1023),
            VarKind::BlockDim(_) => (1, 1024),
            VarKind::BlockIdx(_) => (0, i128::from(i32::MAX) - 1),
            VarKind::GridDim(_) => (1, i128::from(i32::MAX)),
            VarKind::Param { lo, hi } | VarKind::Unknown { lo, hi, .. } => {
                (i128::from(lo), i128::from(hi))
            }
            VarKind::Counter { .. } | VarKind::Shared => return None,
        },
        Expr::Bin(op, a, b) => {
            let ((alo, ahi), (blo, bhi)) = (bounds(a)?, bounds(b)?);
            match op {
                // Checked: constants of hostile input reach i128's limits.
                BinOp::Add => (alo.checked_add(blo)?, ahi.checked_add(bhi)?),
                BinOp::Sub => (alo.checked_sub(bhi)?, ahi.checked_sub(blo)?),
                BinOp::Mul => {
                    let p = [
                        alo.checked_mul(blo)?,
                        alo.checked_mul(bhi)?,
                        ahi.checked_mul(blo)?,
                        ahi.checked_mul(bhi)?,
                    ];
                    (*p.iter().min()?, *p.iter().max()?)
                }
                BinOp::Shl if blo == bhi && (0..64).contains(&blo) && alo >= 0 => (
                    alo.checked_mul(1i128 << blo)?,
                    ahi.checked_mul(1i128 << blo)?,
                ),
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// Whether `e` is linear: every product has a constant factor.
fn linear(e: &Expr) -> bool {
    match e {
        Expr::Bin(BinOp::Mul, a, b) => {
            (a.as_const().is_some() || b.as_const().is_some()) && linear(a) && linear(b)
        }
        Expr::Bin(_, a, b) => linear(a) && linear(b),
        _ => true,
    }
}

/// Whether `e` mentions a parameter or an unknown (a value read from
/// memory or computed by an operation the model does not follow).
fn mentions_run_time_value(e: &Expr) -> bool {
    match e {
        Expr::Var(v) => matches!(v.kind, VarKind::Param { .. } | VarKind::Unknown { .. }),
        Expr::Bin(_, a, b) => mentions_run_time_value(a) || mentions_run_time_value(b),
        _ => false,
    }
}

/// Whether `e` is index arithmetic over the launch's coordinates and sizes
/// with small constants (`blockIdx.x * blockDim.x + threadIdx.x - 1`), the
/// values the stated assumption keeps below 2^32; a shift or a large
/// factor (`t << 27`, `t * 0x80000000u`) wraps for small launches too.
fn launch_index(e: &Expr) -> bool {
    match e {
        Expr::Const(c) => c.unsigned_abs() <= 1 << 16,
        Expr::Var(_) => true,
        Expr::Bin(BinOp::Add | BinOp::Sub | BinOp::Mul, a, b) => launch_index(a) && launch_index(b),
        _ => false,
    }
}

impl<'a, 't> Lowerer<'a, 't> {
    /// `e` as an `unsigned int` holds it: its value modulo 2^32. The
    /// model's arithmetic is mathematical, so `base + t` may pass 2^32 and
    /// `t - 1` go below 0 where the machine wraps (`base + t < base` is the
    /// carry test). A value the bounds keep in `0..2^32` is itself.
    ///
    /// Only a value of known bounds that mentions a parameter or a value
    /// read or computed at run time, or shifts or scales by a large
    /// constant, and is linear, is wrapped: a loop counter's value stays mathematical (its
    /// loop's exit test keeps it in range in the kernels the model takes),
    /// and so does an index of the launch's coordinates alone (a launch has
    /// fewer than 2^32 threads along a dimension in practice; the
    /// assumption is stated in docs/diagnostics.md).
    fn wrapped_u32(&mut self, e: Expr) -> Expr {
        const M: i128 = 1 << 32;
        match bounds(&e) {
            Some((lo, hi)) if lo < 0 || hi >= M => {}
            _ => return e,
        }
        if !mentions_run_time_value(&e) && launch_index(&e) {
            return e;
        }
        // A product of two run-time values wrapped is more than the solver
        // decides in time: left mathematical (an assumption, stated).
        if !linear(&e) {
            return e;
        }
        let r = Expr::bin(BinOp::Rem, e, Expr::Const(1i64 << 32));
        Expr::ite(
            Expr::bin(BinOp::Lt, r.clone(), Expr::Const(0)),
            Expr::add(r.clone(), Expr::Const(1i64 << 32)),
            r,
        )
    }

    /// The comparison `a op b` as C evaluates it, given the operand nodes:
    /// when one side is `unsigned int` and the other is not, the other side
    /// is converted to `unsigned int` (a negative `int` becomes itself plus
    /// 2^32); when its type is unknown (it could be 64-bit, where the
    /// unsigned side converts instead), a negative value compares either
    /// way.
    pub(super) fn c_comparison(&mut self, op: BinOp, l: Node, r: Node, a: Expr, b: Expr) -> Expr {
        let plain = Expr::bin(op, a.clone(), b.clone());
        let (cl, cr) = (class_of(&self.src, l), class_of(&self.src, r));
        let (signed, signed_is_left) = match (cl, cr) {
            // Both `unsigned int`: compared as the machine holds them.
            (IntClass::Unsigned32, IntClass::Unsigned32) => {
                let (a, b) = (self.wrapped_u32(a), self.wrapped_u32(b));
                return Expr::bin(op, a, b);
            }
            (IntClass::Unsigned32, c) => (c, false),
            (c, IntClass::Unsigned32) => (c, true),
            _ => return plain,
        };
        // The unsigned side holds its value modulo 2^32 (a carry wraps).
        let (a, b) = if signed_is_left {
            (a, self.wrapped_u32(b))
        } else {
            (self.wrapped_u32(a), b)
        };
        let plain = Expr::bin(op, a.clone(), b.clone());
        let value = if signed_is_left { &a } else { &b };
        if never_negative(value) {
            return plain;
        }
        let negative = Expr::bin(BinOp::Lt, value.clone(), Expr::Const(0));
        let shifted = Expr::add(value.clone(), Expr::Const(1i64 << 32));
        let wrapped = if signed_is_left {
            Expr::bin(op, shifted, b)
        } else {
            Expr::bin(op, a, shifted)
        };
        let when_negative = match signed {
            IntClass::Signed32 => wrapped,
            // A 32-bit type converts to `unsigned int` (wrapped); a 64-bit
            // signed one takes the `unsigned int` side instead (plain):
            // either may be the program's.
            _ => Expr::ite(
                self.fresh_bool("unsigned_cmp", Scope::Thread),
                wrapped,
                plain.clone(),
            ),
        };
        Expr::ite(negative, when_negative, plain)
    }
}
