//! Host helpers that always return a power of two (or zero): the
//! `next_pow2(n)` a tree reduction's block size is rounded up with.
//!
//! A helper qualifies when its return type is a 32-bit unsigned integer
//! and every `return` returns a value known to be a power of two or zero,
//! read statement by statement over its unsigned 32-bit locals and
//! parameters:
//!
//! * a literal that is one, `1 << k` (any `k`: a shift of 1 leaves one
//!   bit or none in the unsigned result);
//! * such a variable shifted, multiplied or divided by a constant power of
//!   two, wrap-around included (`p <<= 1` in `while (p < n)`: any loop
//!   whose every write to `p` is such a scaling keeps it one);
//! * one more than a *smeared* value, `2^k - 1`: any value becomes one
//!   after `x |= x >> 1; x |= x >> 2; .. x |= x >> 16;` (each step copies
//!   the run of ones below the top bit further down, so a shift by at most
//!   the run's length extends it by the shift), and `x + 1` of a full run
//!   is `2^k` (or 0 when it wraps).
//!
//! Anything else (a branch, a call, another write) leaves what a variable
//! holds unknown, so the summary never claims a value it did not follow.

use crate::syntax::{items, node_text, strip_parentheses};
use std::collections::HashMap;
use tree_sitter::Node;

/// The bit width of the values followed.
const WIDTH: u32 = 32;

/// What a variable is known to hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Bits {
    /// A power of two or zero.
    power: bool,
    /// At least this many ones run down from its top set bit (every value
    /// has 1: its top bit, or it is zero); `WIDTH` means `2^k - 1`.
    ones: u32,
}

const UNKNOWN: Bits = Bits {
    power: false,
    ones: 1,
};
const POWER: Bits = Bits {
    power: true,
    ones: 1,
};

/// Whether the function definition `f` always returns a power of two or
/// zero (see the module's comment).
pub(crate) fn returns_power_of_two(text: &str, f: Node) -> bool {
    let returns_unsigned = f
        .child_by_field_name("type")
        .is_some_and(|t| is_unsigned_32(node_text(text, t)));
    let Some(body) = f.child_by_field_name("body") else {
        return false;
    };
    // Nothing but the assignments and increments read below may change a
    // variable: no call (an argument taken by reference), no address or
    // reference, no lambda, no jump out of order.
    let opaque = [
        "goto_statement",
        "call_expression",
        "lambda_expression",
        "switch_statement",
    ]
    .iter()
    .any(|k| mentions_kind(body, k));
    if !returns_unsigned || opaque || mentions_address(body) {
        return false;
    }
    let mut env: HashMap<String, Bits> = HashMap::new();
    for p in crate::syntax::function_params(f) {
        let plain = p
            .child_by_field_name("declarator")
            .filter(|d| d.kind() == "identifier");
        let ty = p.child_by_field_name("type").map(|t| node_text(text, t));
        if let (Some(d), Some(ty)) = (plain, ty) {
            if is_unsigned_32(ty) {
                env.insert(node_text(text, d).to_string(), UNKNOWN);
            }
        }
    }
    let mut returns = 0;
    let ok = block(text, &items(body), &mut env, &mut returns);
    // A body that falls off its end returns nothing a caller may read.
    ok && returns > 0 && ends_in_return(body)
}

/// Runs `stmts` on `env`; false when a `return` may return something else
/// or a statement is not followed.
fn block(text: &str, stmts: &[Node], env: &mut HashMap<String, Bits>, returns: &mut usize) -> bool {
    for s in stmts {
        if !statement(text, *s, env, returns) {
            return false;
        }
    }
    true
}

fn statement(text: &str, s: Node, env: &mut HashMap<String, Bits>, returns: &mut usize) -> bool {
    match s.kind() {
        "comment" => true,
        "compound_statement" => block(text, &items(s), env, returns),
        "return_statement" => {
            *returns += 1;
            let Some(e) = s.named_child(0) else {
                return false;
            };
            // `return ++x;` of a smeared `x`: the one write a returned
            // expression may make.
            let e = strip_parentheses(e);
            if e.kind() == "update_expression" {
                let prefix_increment = e.child(0).is_some_and(|o| o.kind() == "++");
                return prefix_increment
                    && e.child_by_field_name("argument")
                        .filter(|a| a.kind() == "identifier")
                        .and_then(|a| env.get(node_text(text, a)))
                        .is_some_and(|b| b.ones >= WIDTH);
            }
            !writes_inside(e) && value(text, e, env).power
        }
        "declaration" => {
            let ty = s
                .child_by_field_name("type")
                .map(|t| node_text(text, t))
                .unwrap_or("");
            let mut c = s.walk();
            for d in s.children_by_field_name("declarator", &mut c) {
                let (name, init) = match d.kind() {
                    "init_declarator" => (
                        d.child_by_field_name("declarator")
                            .filter(|n| n.kind() == "identifier"),
                        d.child_by_field_name("value"),
                    ),
                    "identifier" => (Some(d), None),
                    _ => (None, None),
                };
                let Some(name) = name else {
                    // A pointer or array: nothing followed may alias it.
                    if mentions_address(d) {
                        return false;
                    }
                    continue;
                };
                let name = node_text(text, name).to_string();
                // A second declaration of a name (a shadow in a nested
                // block) would make one reading stand for two variables.
                if env.contains_key(&name) || init.is_some_and(writes_inside) {
                    return false;
                }
                if is_unsigned_32(ty) {
                    let held = init.map_or(UNKNOWN, |v| value(text, v, env));
                    env.insert(name, held);
                } else {
                    env.remove(&name);
                }
            }
            true
        }
        "expression_statement" => match s.named_child(0) {
            None => true,
            Some(e) => effect(text, e, env),
        },
        "while_statement" | "for_statement" | "do_statement" => {
            if mentions_kind(s, "return_statement") {
                return false;
            }
            if s.kind() == "for_statement" {
                if let Some(init) = s.child_by_field_name("initializer") {
                    if init.kind() == "declaration" {
                        if !statement(text, init, env, returns) {
                            return false;
                        }
                    } else if !effect(text, init, env) {
                        return false;
                    }
                }
            }
            // Each variable the loop writes keeps a power of two only when
            // every one of its writes there scales it; anything else is
            // unknown after (and inside) the loop.
            let mut writes = Vec::new();
            let header_end = s
                .child_by_field_name("initializer")
                .map_or(s.start_byte(), |i| i.end_byte());
            collect_writes(text, s, &mut writes);
            let mut verdict: HashMap<String, bool> = HashMap::new();
            for (name, w) in writes {
                if w.end_byte() <= header_end {
                    continue;
                }
                let keeps = scales(text, w, &name, env);
                *verdict.entry(name).or_insert(true) &= keeps;
            }
            for (name, keeps) in verdict {
                let held = env.get(&name).copied();
                match held {
                    Some(b) if keeps && b.power => {
                        env.insert(name, POWER);
                    }
                    Some(_) => {
                        env.insert(name, UNKNOWN);
                    }
                    None => {}
                }
            }
            true
        }
        "if_statement" => {
            let Some(then) = s.child_by_field_name("consequence") else {
                return false;
            };
            if s.child_by_field_name("condition").is_none_or(writes_inside) {
                return false;
            }
            let mut a = env.clone();
            if !statement(text, then, &mut a, returns) {
                return false;
            }
            let mut b = env.clone();
            if let Some(alt) = s.child_by_field_name("alternative") {
                let alt = if alt.kind() == "else_clause" {
                    match alt.named_child(0) {
                        Some(x) => x,
                        None => return false,
                    }
                } else {
                    alt
                };
                if !statement(text, alt, &mut b, returns) {
                    return false;
                }
            }
            // Either branch may have run (a branch that returned adds
            // nothing false: the join only loses knowledge).
            for (name, held) in env.iter_mut() {
                let x = a.get(name).copied().unwrap_or(UNKNOWN);
                let y = b.get(name).copied().unwrap_or(UNKNOWN);
                *held = Bits {
                    power: x.power && y.power,
                    ones: x.ones.min(y.ones),
                };
            }
            true
        }
        _ => false,
    }
}

/// An expression statement's effect on `env`: an assignment or an
/// increment of a followed variable; any other write is not followed.
fn effect(text: &str, e: Node, env: &mut HashMap<String, Bits>) -> bool {
    let e = strip_parentheses(e);
    match e.kind() {
        "assignment_expression" => {
            let Some(left) = e.child_by_field_name("left") else {
                return false;
            };
            if left.kind() != "identifier" {
                return false;
            }
            let name = node_text(text, left).to_string();
            if e.child_by_field_name("right").is_none_or(writes_inside) {
                return false;
            }
            if !env.contains_key(&name) {
                // A variable not followed (another type): its value is
                // never read as a power of two.
                return true;
            }
            let held = assigned(text, e, &name, env);
            env.insert(name, held);
            true
        }
        "update_expression" => {
            let Some(arg) = e.child_by_field_name("argument") else {
                return false;
            };
            if arg.kind() != "identifier" {
                return false;
            }
            let name = node_text(text, arg).to_string();
            let Some(old) = env.get(&name).copied() else {
                return true;
            };
            let op = e
                .child_by_field_name("operator")
                .map(|o| node_text(text, o))
                .unwrap_or("");
            let held = if op == "++" && old.ones >= WIDTH {
                POWER
            } else {
                UNKNOWN
            };
            env.insert(name, held);
            true
        }
        "comma_expression" => {
            let (Some(l), Some(r)) = (
                e.child_by_field_name("left"),
                e.child_by_field_name("right"),
            ) else {
                return false;
            };
            effect(text, l, env) && effect(text, r, env)
        }
        _ => false,
    }
}

/// What `name` holds after the assignment `e` to it.
fn assigned(text: &str, e: Node, name: &str, env: &HashMap<String, Bits>) -> Bits {
    let (Some(op), Some(right)) = (
        e.child_by_field_name("operator"),
        e.child_by_field_name("right"),
    ) else {
        return UNKNOWN;
    };
    let old = env.get(name).copied().unwrap_or(UNKNOWN);
    match node_text(text, op) {
        "=" => value(text, right, env),
        "|=" => {
            // `x |= x >> s` with s within the run of ones extends it.
            let r = strip_parentheses(right);
            let shifted = r.kind() == "binary_expression"
                && r.child_by_field_name("operator")
                    .is_some_and(|o| node_text(text, o) == ">>")
                && r.child_by_field_name("left")
                    .is_some_and(|l| l.kind() == "identifier" && node_text(text, l) == name);
            let amount = r
                .child_by_field_name("right")
                .and_then(|a| literal(text, a))
                .filter(|_| shifted);
            match amount {
                Some(s) if (1..=i64::from(old.ones)).contains(&s) => Bits {
                    power: false,
                    ones: (old.ones + s as u32).min(WIDTH),
                },
                _ => UNKNOWN,
            }
        }
        "+=" if literal(text, right) == Some(1) && old.ones >= WIDTH => POWER,
        "<<=" | ">>=" | "*=" | "/=" => {
            let op = node_text(text, op).trim_end_matches('=');
            if old.power && keeps_power(op, literal(text, right)) {
                POWER
            } else {
                UNKNOWN
            }
        }
        _ => UNKNOWN,
    }
}

/// Whether the write `w` (inside a loop) to `name` scales it by a power of
/// two: `p <<= c`, `p *= 2^c`, `p = p << c`, ... with a literal `c`.
fn scales(text: &str, w: Node, name: &str, env: &HashMap<String, Bits>) -> bool {
    if w.kind() != "assignment_expression" {
        return false;
    }
    let (Some(op), Some(right)) = (
        w.child_by_field_name("operator"),
        w.child_by_field_name("right"),
    ) else {
        return false;
    };
    match node_text(text, op) {
        "=" => {
            let r = strip_parentheses(right);
            r.kind() == "binary_expression"
                && r.child_by_field_name("left")
                    .is_some_and(|l| l.kind() == "identifier" && node_text(text, l) == name)
                && r.child_by_field_name("operator").is_some_and(|o| {
                    keeps_power(
                        node_text(text, o),
                        r.child_by_field_name("right")
                            .and_then(|a| literal(text, a)),
                    )
                })
        }
        op @ ("<<=" | ">>=" | "*=" | "/=") => {
            env.contains_key(name) && keeps_power(op.trim_end_matches('='), literal(text, right))
        }
        _ => false,
    }
}

/// What the expression `e` is known to hold.
fn value(text: &str, e: Node, env: &HashMap<String, Bits>) -> Bits {
    let e = strip_parentheses(e);
    if let Some(v) = literal(text, e) {
        let power = (0..=i64::from(u32::MAX)).contains(&v) && v & (v - 1).max(0) == 0;
        return Bits {
            power,
            ones: if power { 1 } else { UNKNOWN.ones },
        };
    }
    match e.kind() {
        "identifier" => env.get(node_text(text, e)).copied().unwrap_or(UNKNOWN),
        "cast_expression" => {
            let to_unsigned = e
                .child_by_field_name("type")
                .is_some_and(|t| is_unsigned_32(node_text(text, t)));
            match e.child_by_field_name("value") {
                Some(v) if to_unsigned => value(text, v, env),
                _ => UNKNOWN,
            }
        }
        "binary_expression" => {
            let (Some(l), Some(o), Some(r)) = (
                e.child_by_field_name("left"),
                e.child_by_field_name("operator"),
                e.child_by_field_name("right"),
            ) else {
                return UNKNOWN;
            };
            let op = node_text(text, o);
            // `1 << k`: one bit, or none once shifted out.
            if op == "<<" && literal(text, strip_parentheses(l)) == Some(1) {
                return POWER;
            }
            let left = value(text, l, env);
            if op == "+" && literal(text, r) == Some(1) && left.ones >= WIDTH {
                return POWER;
            }
            if left.power && keeps_power(op, literal(text, r)) {
                return POWER;
            }
            UNKNOWN
        }
        _ => UNKNOWN,
    }
}

/// Whether `x op c` is a power of two or zero whenever the unsigned `x`
/// is (a shift by less than the width, or a product or quotient by a
/// power of two).
fn keeps_power(op: &str, amount: Option<i64>) -> bool {
    match (op, amount) {
        ("<<" | ">>", Some(c)) => (0..i64::from(WIDTH)).contains(&c),
        ("*" | "/", Some(c)) => c > 0 && c & (c - 1) == 0,
        _ => false,
    }
}

/// An integer literal's value (`1`, `1u`, `0x10`).
fn literal(text: &str, n: Node) -> Option<i64> {
    let n = strip_parentheses(n);
    (n.kind() == "number_literal")
        .then(|| crate::frontend::parse_int(node_text(text, n)))
        .flatten()
}

/// The assignments and increments of plain variables inside `n`.
fn collect_writes<'t>(text: &str, n: Node<'t>, out: &mut Vec<(String, Node<'t>)>) {
    let target = match n.kind() {
        "assignment_expression" => n.child_by_field_name("left"),
        "update_expression" => n.child_by_field_name("argument"),
        _ => None,
    };
    if let Some(t) = target.filter(|t| t.kind() == "identifier") {
        out.push((node_text(text, t).to_string(), n));
    }
    let mut c = n.walk();
    for m in n.named_children(&mut c) {
        collect_writes(text, m, out);
    }
}

/// Whether the expression `n` writes a variable (an assignment or an
/// increment inside it).
fn writes_inside(n: Node) -> bool {
    mentions_kind(n, "assignment_expression") || mentions_kind(n, "update_expression")
}

fn mentions_address(n: Node) -> bool {
    if n.kind() == "pointer_expression" || n.kind() == "reference_declarator" {
        return true;
    }
    let mut c = n.walk();
    let found = n.named_children(&mut c).any(mentions_address);
    found
}

fn mentions_kind(n: Node, kind: &str) -> bool {
    if n.kind() == kind {
        return true;
    }
    let mut c = n.walk();
    let found = n.named_children(&mut c).any(|m| mentions_kind(m, kind));
    found
}

/// Whether the last statement of the body is a `return` (no path falls
/// off the end).
fn ends_in_return(body: Node) -> bool {
    items(body)
        .last()
        .is_some_and(|s| s.kind() == "return_statement")
}

fn is_unsigned_32(ty: &str) -> bool {
    matches!(
        ty.trim()
            .trim_start_matches("static ")
            .trim_start_matches("inline ")
            .trim_start_matches("const ")
            .trim(),
        "unsigned" | "unsigned int" | "uint" | "uint32_t"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the one function defined in `src` returns a power of two.
    fn summary(src: &str) -> bool {
        let tree = crate::syntax::parse(src, None);
        let root = tree.root_node();
        let mut c = root.walk();
        let f = root
            .named_children(&mut c)
            .find(|n| n.kind() == "function_definition")
            .expect("a function");
        returns_power_of_two(src, f)
    }

    #[test]
    fn doubling_loops_and_bit_smears_return_powers_of_two() {
        assert!(summary(
            "unsigned next_pow2(unsigned n) { unsigned p = 1; while (p < n) p <<= 1; return p; }"
        ));
        assert!(summary(
            "unsigned up(unsigned n) { unsigned p = 1; for (; p < n; p *= 2) {} return p; }"
        ));
        assert!(summary(
            "unsigned int np2(unsigned int x) { --x; x |= x >> 1; x |= x >> 2; x |= x >> 4; \
             x |= x >> 8; x |= x >> 16; return ++x; }"
        ));
        assert!(summary(
            "unsigned int np2(unsigned int x) { --x; x |= x >> 1; x |= x >> 2; x |= x >> 4; \
             x |= x >> 8; x |= x >> 16; return x + 1; }"
        ));
        assert!(summary(
            "unsigned pick(unsigned n, unsigned k) { if (n > 64) { return 64; } return 1u << k; }"
        ));
    }

    #[test]
    fn other_helpers_are_not_summarised() {
        // Rounded to a multiple of 32, not a power of two.
        assert!(!summary(
            "unsigned round(unsigned n) { unsigned p = 32; while (p < n) p += 32; return p; }"
        ));
        // One smear step missing: the run may stop at 16 ones.
        assert!(!summary(
            "unsigned int np2(unsigned int x) { --x; x |= x >> 1; x |= x >> 2; x |= x >> 4; \
             x |= x >> 8; return x + 1; }"
        ));
        // A shift beyond the run: bits in between may be zero.
        assert!(!summary(
            "unsigned int np2(unsigned int x) { x |= x >> 2; x |= x >> 4; x |= x >> 8; \
             x |= x >> 16; x |= x >> 1; return x + 1; }"
        ));
        // A signed result, a path with another value, a fall-through.
        assert!(!summary(
            "int p(int n) { int v = 1; while (v < n) v <<= 1; return v; }"
        ));
        assert!(!summary(
            "unsigned p(unsigned n) { if (n > 4) return 3; return 4; }"
        ));
        assert!(!summary(
            "unsigned p(unsigned n) { unsigned v = 1; while (v < n) { v <<= 1; if (n == 9) v = n; } return v; }"
        ));
        // `x++` returns the smeared value itself; a shadowing declaration;
        // a call that may write through a reference.
        assert!(!summary(
            "unsigned np2(unsigned x) { x |= x >> 1; x |= x >> 2; x |= x >> 4; x |= x >> 8; \
             x |= x >> 16; return x++; }"
        ));
        assert!(!summary(
            "unsigned p(unsigned n) { unsigned v = n; { unsigned v = 1; } return v; }"
        ));
        assert!(!summary(
            "unsigned p(unsigned n) { unsigned v = 1; grow(v, n); return v; }"
        ));
    }
}
