//! Host helper functions with loops, summarised by what their result says
//! about an argument, so a host check on the result becomes a launch fact.
//!
//! One summary so far, the *odd part*: a helper that returns its integer
//! parameter `x` with its trailing zero bits removed (`x` halved while it
//! is even), and 0 for 0. Sizes are checked to be powers of two that way
//! (`assert(factor_twos(&log2n, n) == 1)`): the odd part of `x` is 1
//! exactly when `x` is a positive power of two, so the check is the fact
//! `x > 0 && (x & (x - 1)) == 0`.
//!
//! The summary must be exact (the check may also be negated: `if (h(n) !=
//! 1) return;`), so the shape is narrow: every path either returns `x`
//! after the halving loop, or, under a test `x == 0`, returns `x` or 0;
//! nothing else writes `x`, and nothing leaves the loop but its test.

use crate::syntax::{items, node_text, strip_parentheses};
use tree_sitter::Node;

/// A host function that returns the odd part of one of its parameters.
#[derive(Clone, Debug)]
pub(crate) struct OddPart {
    /// The parameter's position.
    pub index: usize,
    /// How many parameters the function takes (a call must pass them all).
    pub arity: usize,
    /// The parameter's declared type (the argument's must have the same
    /// range, or the conversion would change the value tested).
    pub ty: String,
}

/// The odd-part summary of the function definition `f`, if it is one.
pub(crate) fn odd_part(text: &str, f: Node) -> Option<OddPart> {
    let params = crate::syntax::function_params(f);
    let body = f.child_by_field_name("body")?;
    for (index, p) in params.iter().enumerate() {
        // A by-value parameter: writes to it are the helper's own.
        let Some(d) = p
            .child_by_field_name("declarator")
            .filter(|d| d.kind() == "identifier")
        else {
            continue;
        };
        let ty = p
            .child_by_field_name("type")
            .map(|t| node_text(text, t).to_string())
            .unwrap_or_default();
        // At most 32 bits: the verifier reads `(x & (x - 1)) == 0` in the
        // low 32 bits of `x`.
        if !crate::frontend::int_range(&ty)
            .is_some_and(|(lo, hi)| lo >= i64::from(i32::MIN) && hi <= i64::from(u32::MAX))
        {
            continue;
        }
        let x = node_text(text, d);
        let state = Path {
            halved: false,
            zero: false,
        };
        if block_returns_odd_part(text, &items(body), x, state) {
            return Some(OddPart {
                index,
                arity: params.len(),
                ty,
            });
        }
    }
    None
}

/// What a path knows about `x` so far.
#[derive(Clone, Copy)]
struct Path {
    /// `x` has been through the halving loop: it is its odd part.
    halved: bool,
    /// `x == 0` holds (its odd part is 0).
    zero: bool,
}

/// Whether every path through the statements ends in a `return` of the
/// odd part of `x`'s value at entry.
fn block_returns_odd_part(text: &str, stmts: &[Node], x: &str, mut at: Path) -> bool {
    for (i, s) in stmts.iter().enumerate() {
        match s.kind() {
            "return_statement" => {
                let Some(v) = s.named_child(0).map(strip_parentheses) else {
                    return false;
                };
                let is_x = v.kind() == "identifier" && node_text(text, v) == x;
                let is_zero = v.kind() == "number_literal"
                    && crate::frontend::parse_int(node_text(text, v)) == Some(0);
                return (is_x && (at.halved || at.zero)) || (is_zero && at.zero);
            }
            // A nested block runs its statements, then the rest.
            "compound_statement" => {
                let mut flat = items(*s);
                flat.extend_from_slice(&stmts[i + 1..]);
                return block_returns_odd_part(text, &flat, x, at);
            }
            "if_statement" => {
                let Some(zero_when) = s
                    .child_by_field_name("condition")
                    .map(unwrap_condition)
                    .and_then(|c| zero_test(text, c, x))
                else {
                    return false;
                };
                let branch = |b: Option<Node>, zero: bool| {
                    let state = Path { zero, ..at };
                    b.is_some_and(|b| block_returns_odd_part(text, &as_block(b), x, state))
                };
                let then = s.child_by_field_name("consequence");
                match s.child_by_field_name("alternative") {
                    Some(e) => {
                        let e = e
                            .named_child(0)
                            .filter(|_| e.kind() == "else_clause")
                            .unwrap_or(e);
                        return branch(then, zero_when) && branch(Some(e), !zero_when);
                    }
                    None => {
                        if !branch(then, zero_when) {
                            return false;
                        }
                        // The rest runs only when the test failed.
                        at.zero = !zero_when;
                    }
                }
            }
            "for_statement" | "while_statement" if halving_loop(text, *s, x) => {
                at.halved = true;
                at.zero = false;
            }
            "expression_statement" | "declaration" => {
                if mentions(text, *s, x) || has_jump(*s) {
                    return false;
                }
            }
            _ => return false,
        }
    }
    // Falling off the end of a function that returns a value.
    false
}

/// `x == 0` / `!x` → Some(true) (the then-branch sees `x == 0`);
/// `x != 0` / `x` → Some(false).
fn zero_test(text: &str, c: Node, x: &str) -> Option<bool> {
    let c = strip_parentheses(c);
    let is_x = |n: Node| {
        let n = strip_parentheses(n);
        n.kind() == "identifier" && node_text(text, n) == x
    };
    let is_zero = |n: Node| {
        let n = strip_parentheses(n);
        n.kind() == "number_literal" && crate::frontend::parse_int(node_text(text, n)) == Some(0)
    };
    match c.kind() {
        "identifier" if is_x(c) => Some(false),
        "unary_expression" => {
            let op = node_text(text, c.child_by_field_name("operator")?);
            let arg = c.child_by_field_name("argument")?;
            (op == "!" && is_x(arg)).then_some(true)
        }
        "binary_expression" => {
            let op = node_text(text, c.child_by_field_name("operator")?);
            let (l, r) = (
                c.child_by_field_name("left")?,
                c.child_by_field_name("right")?,
            );
            if !((is_x(l) && is_zero(r)) || (is_zero(l) && is_x(r))) {
                return None;
            }
            match op {
                "==" => Some(true),
                "!=" => Some(false),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A loop that halves `x` while it is even, and does nothing else to it:
/// its test is `(x & 1) == 0`, `!(x & 1)` or `x % 2 == 0`; one
/// unconditional halving (`x >>= 1`, `x /= 2`, `x = x >> 1`, `x = x / 2`)
/// in its update or as a statement of its body; every other part leaves
/// `x` unnamed; nothing leaves the loop (`break`, `return`, `goto`) or
/// skips the halving (`continue`). Halving an even number loses no bit, so
/// at the exit `x` is its value at entry with its trailing zeros removed.
fn halving_loop(text: &str, l: Node, x: &str) -> bool {
    if has_jump_inside(l) {
        return false;
    }
    let Some(cond) = l.child_by_field_name("condition").map(unwrap_condition) else {
        return false;
    };
    if !even_test(text, cond, x) {
        return false;
    }
    let mut parts: Vec<Node> = Vec::new();
    if let Some(init) = l.child_by_field_name("initializer") {
        if mentions(text, init, x) {
            return false;
        }
    }
    if let Some(update) = l.child_by_field_name("update") {
        comma_parts(update, &mut parts);
    }
    let Some(body) = l.child_by_field_name("body") else {
        return false;
    };
    for s in as_block(body) {
        match s.kind() {
            "expression_statement" => {
                if let Some(e) = s.named_child(0) {
                    comma_parts(e, &mut parts);
                }
            }
            _ if !mentions(text, s, x) => {}
            _ => return false,
        }
    }
    let mut halvings = 0;
    for p in parts {
        if halves(text, p, x) {
            halvings += 1;
        } else if mentions(text, p, x) {
            return false;
        }
    }
    halvings == 1
}

/// `(x & 1) == 0`, `0 == (x & 1)`, `!(x & 1)`, `x % 2 == 0`, `!(x % 2)`.
fn even_test(text: &str, c: Node, x: &str) -> bool {
    let c = strip_parentheses(c);
    let low_bit = |n: Node| {
        let n = strip_parentheses(n);
        if n.kind() != "binary_expression" {
            return false;
        }
        let (Some(l), Some(o), Some(r)) = (
            n.child_by_field_name("left").map(strip_parentheses),
            n.child_by_field_name("operator"),
            n.child_by_field_name("right").map(strip_parentheses),
        ) else {
            return false;
        };
        let is_x = |m: Node| m.kind() == "identifier" && node_text(text, m) == x;
        let is = |m: Node, v: i64| {
            m.kind() == "number_literal"
                && crate::frontend::parse_int(node_text(text, m)) == Some(v)
        };
        match node_text(text, o) {
            "&" => (is_x(l) && is(r, 1)) || (is(l, 1) && is_x(r)),
            "%" => is_x(l) && is(r, 2),
            _ => false,
        }
    };
    let is_zero = |n: Node| {
        let n = strip_parentheses(n);
        n.kind() == "number_literal" && crate::frontend::parse_int(node_text(text, n)) == Some(0)
    };
    match c.kind() {
        "unary_expression" => {
            c.child_by_field_name("operator")
                .is_some_and(|o| node_text(text, o) == "!")
                && c.child_by_field_name("argument").is_some_and(low_bit)
        }
        "binary_expression" => {
            let (Some(l), Some(o), Some(r)) = (
                c.child_by_field_name("left"),
                c.child_by_field_name("operator"),
                c.child_by_field_name("right"),
            ) else {
                return false;
            };
            node_text(text, o) == "==" && ((low_bit(l) && is_zero(r)) || (is_zero(l) && low_bit(r)))
        }
        _ => false,
    }
}

/// `x >>= 1`, `x /= 2`, `x = x >> 1`, `x = x / 2`.
fn halves(text: &str, e: Node, x: &str) -> bool {
    let e = strip_parentheses(e);
    if e.kind() != "assignment_expression" {
        return false;
    }
    let (Some(l), Some(o), Some(r)) = (
        e.child_by_field_name("left").map(strip_parentheses),
        e.child_by_field_name("operator"),
        e.child_by_field_name("right").map(strip_parentheses),
    ) else {
        return false;
    };
    let is_x = |m: Node| m.kind() == "identifier" && node_text(text, m) == x;
    let is = |m: Node, v: i64| {
        m.kind() == "number_literal" && crate::frontend::parse_int(node_text(text, m)) == Some(v)
    };
    if !is_x(l) {
        return false;
    }
    match node_text(text, o) {
        ">>=" => is(r, 1),
        "/=" => is(r, 2),
        "=" if r.kind() == "binary_expression" => {
            let (Some(a), Some(op), Some(b)) = (
                r.child_by_field_name("left").map(strip_parentheses),
                r.child_by_field_name("operator"),
                r.child_by_field_name("right").map(strip_parentheses),
            ) else {
                return false;
            };
            is_x(a)
                && match node_text(text, op) {
                    ">>" => is(b, 1),
                    "/" => is(b, 2),
                    _ => false,
                }
        }
        _ => false,
    }
}

/// The operands of a comma expression, in order (`a, b, c`).
fn comma_parts<'t>(e: Node<'t>, out: &mut Vec<Node<'t>>) {
    if e.kind() == "comma_expression" {
        if let Some(l) = e.child_by_field_name("left") {
            comma_parts(l, out);
        }
        if let Some(r) = e.child_by_field_name("right") {
            comma_parts(r, out);
        }
    } else {
        out.push(e);
    }
}

/// Whether the identifier `x` occurs in `n`.
fn mentions(text: &str, n: Node, x: &str) -> bool {
    if n.kind() == "identifier" && node_text(text, n) == x {
        return true;
    }
    let mut c = n.walk();
    let found = n.named_children(&mut c).any(|m| mentions(text, m, x));
    found
}

/// Whether `n` holds a statement that leaves the enclosing code other than
/// by falling through (or a lambda, whose body is not followed).
fn has_jump(n: Node) -> bool {
    if matches!(
        n.kind(),
        "return_statement"
            | "break_statement"
            | "continue_statement"
            | "goto_statement"
            | "throw_statement"
            | "lambda_expression"
    ) {
        return true;
    }
    let mut c = n.walk();
    let found = n.named_children(&mut c).any(has_jump);
    found
}

/// [`has_jump`] below the loop `l` itself.
fn has_jump_inside(l: Node) -> bool {
    let mut c = l.walk();
    let found = l.named_children(&mut c).any(has_jump);
    found
}

/// A statement as the list of statements it runs (`;` → none).
fn as_block(s: Node) -> Vec<Node> {
    match s.kind() {
        "compound_statement" => items(s),
        "expression_statement" if s.named_child_count() == 0 => Vec::new(),
        _ => vec![s],
    }
}

fn unwrap_condition(c: Node) -> Node {
    if c.kind() == "condition_clause" {
        if let Some(v) = c.child_by_field_name("value") {
            return v;
        }
        return c.named_child(0).unwrap_or(c);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The odd-part summary of the one function defined in `src`.
    fn summary(src: &str) -> Option<usize> {
        let tree = crate::syntax::parse(src, None);
        let root = tree.root_node();
        let mut c = root.walk();
        let f = root
            .named_children(&mut c)
            .find(|n| n.kind() == "function_definition")
            .expect("a function");
        odd_part(src, f).map(|s| s.index)
    }

    #[test]
    fn halving_while_even_returns_the_odd_part() {
        // A `for` with an out-parameter counting the twos, 0 for 0.
        let counted = "unsigned f(unsigned *k, unsigned v) {
            if (!v) { *k = 0; return 0; }
            else { for (*k = 0; (v & 1) == 0; v >>= 1, ++*k) ; return v; }
        }";
        assert_eq!(summary(counted), Some(1));
        // A `while` halving in its body; no test for 0 (it never returns).
        let plain = "int f(int v) { while (v % 2 == 0) { v = v / 2; } return v; }";
        assert_eq!(summary(plain), Some(0));
        // The zero test first, with no else: the rest runs for v != 0.
        let guarded =
            "unsigned f(unsigned v) { if (v == 0) return v; while (!(v & 1)) v /= 2; return v; }";
        assert_eq!(summary(guarded), Some(0));
    }

    #[test]
    fn anything_else_is_not_an_odd_part() {
        let not = [
            // Two bits at a time: 6 gives 1.
            "unsigned f(unsigned v) { while ((v & 1) == 0) v >>= 2; return v; }",
            // Left early.
            "unsigned f(unsigned v) { while ((v & 1) == 0) { if (v > 64) break; v >>= 1; } return v; }",
            // Written besides the halving.
            "unsigned f(unsigned v) { v = v | 4; while ((v & 1) == 0) v >>= 1; return v; }",
            // Not halved before its return.
            "unsigned f(unsigned v) { return v; }",
            // A constant returned for a nonzero value.
            "unsigned f(unsigned v) { if (v) return 1; while ((v & 1) == 0) v >>= 1; return v; }",
            // Halved under a condition.
            "unsigned f(unsigned v, int c) { while ((v & 1) == 0) { if (c) v >>= 1; } return v; }",
            // Wider than 32 bits.
            "unsigned long long f(unsigned long long v) { while ((v & 1) == 0) v >>= 1; return v; }",
            // Passed by reference.
            "unsigned f(unsigned &v) { while ((v & 1) == 0) v >>= 1; return v; }",
        ];
        for src in not {
            assert_eq!(summary(src), None, "{src}");
        }
    }
}
