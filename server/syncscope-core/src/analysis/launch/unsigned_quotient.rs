//! An upper bound of a host value passed to a kernel that is a 32-bit
//! unsigned quotient: `uint count = (n + 2 * s - r) / 256;` holds at most
//! `UINT_MAX / 256` whatever `n`, `s` and `r` are, because C computes the
//! dividend in `unsigned int` (its every variable is a 32-bit unsigned one,
//! its constants `int`s that convert to it) and the quotient cannot exceed
//! the dividend's largest value divided by the divisor. A kernel that
//! scales the value by the divisor again (`(pos - i) * 256` for a `pos`
//! below it) then never wraps around.

use super::{strip_parentheses, Host, Local};
use crate::syntax::node_text;
use tree_sitter::Node;

/// The C type class of a host expression, as far as this bound reads it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// `unsigned int` (32 bits).
    Unsigned32,
    /// An `int` (or a constant an `int` holds, not negative): converted to
    /// `unsigned int` next to one.
    Int,
}

impl<'t> Host<'_, 't> {
    /// The largest value the local `a` (passed to a kernel) may hold when
    /// it is a 32-bit unsigned local never written before the launch whose
    /// initializer is such a quotient (`E / C`, `E >> C`, or a conditional
    /// of them).
    pub(super) fn unsigned_quotient_bound(&self, a: Node<'t>) -> Option<i64> {
        let a = strip_parentheses(a);
        if a.kind() != "identifier" {
            return None;
        }
        let name = node_text(self.text, a);
        if self.declared_more_than_once(name) || !self.is_unsigned_32(name) {
            return None;
        }
        let Some(Local::Scalar(init)) = self.locals.get(name) else {
            return None;
        };
        self.quotient_bound(*init, 0)
    }

    fn quotient_bound(&self, e: Node, depth: usize) -> Option<i64> {
        if depth > super::DEPTH {
            return None;
        }
        let e = strip_parentheses(e);
        match e.kind() {
            "conditional_expression" => {
                let a = self.quotient_bound(e.child_by_field_name("consequence")?, depth + 1)?;
                let b = self.quotient_bound(e.child_by_field_name("alternative")?, depth + 1)?;
                Some(a.max(b))
            }
            "binary_expression" => {
                let op = node_text(self.text, e.child_by_field_name("operator")?);
                let left = e.child_by_field_name("left")?;
                let by = self.value(e.child_by_field_name("right")?)?;
                if self.class(left, depth + 1)? != Class::Unsigned32 {
                    return None;
                }
                let most = i64::from(u32::MAX);
                match op {
                    "/" if by > 0 => Some(most / by),
                    ">>" if (0..32).contains(&by) => Some(most >> by),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The type class of a host expression whose every name is a 32-bit
    /// variable of the function or a constant; `None` for anything else
    /// (a wider type, a call, a negative constant).
    fn class(&self, e: Node, depth: usize) -> Option<Class> {
        if depth > super::DEPTH {
            return None;
        }
        let e = strip_parentheses(e);
        match e.kind() {
            "number_literal" => {
                let text = node_text(self.text, e).to_ascii_lowercase();
                let v = crate::frontend::parse_int(&text)?;
                if text.contains('l') {
                    return None;
                }
                if text.ends_with('u') {
                    return (0..=i64::from(u32::MAX))
                        .contains(&v)
                        .then_some(Class::Unsigned32);
                }
                (0..=i64::from(i32::MAX)).contains(&v).then_some(Class::Int)
            }
            "identifier" => {
                let name = node_text(self.text, e);
                if self.types.contains_key(name) {
                    if self.declared_more_than_once(name) {
                        return None;
                    }
                    if self.is_unsigned_32(name) {
                        return Some(Class::Unsigned32);
                    }
                    let signed = self
                        .types
                        .get(name)
                        .is_some_and(|t| super::is_32_bit_signed_type_name(t));
                    return signed.then_some(Class::Int);
                }
                // A constant of the unit: its type is not read, only a
                // value an `int` holds (converted alike either way).
                let v = self.constant(name, depth)?;
                (0..=i64::from(i32::MAX)).contains(&v).then_some(Class::Int)
            }
            "binary_expression" => {
                let op = node_text(self.text, e.child_by_field_name("operator")?);
                let l = self.class(e.child_by_field_name("left")?, depth + 1)?;
                let r = self.class(e.child_by_field_name("right")?, depth + 1)?;
                match op {
                    "+" | "-" | "*" | "/" | "%" | "&" | "|" | "^" => {
                        Some(if l == Class::Unsigned32 || r == Class::Unsigned32 {
                            Class::Unsigned32
                        } else {
                            Class::Int
                        })
                    }
                    // A shift has its left operand's type.
                    "<<" | ">>" => Some(l),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn is_unsigned_32(&self, name: &str) -> bool {
        self.types
            .get(name)
            .and_then(|t| super::host_order::type_range(t))
            == Some((0, i64::from(u32::MAX)))
    }
}
