//! Host values read in program order: what a variable holds at a point
//! of the host function before its first write, after a loop of constants
//! that ends before the launch, and which variables hold a power of two
//! (or zero) at every point because each of their writes scales them by a
//! power of two.
//!
//! `Host` reads a variable written anywhere before the launch as unknown;
//! these readings recover the values that still hold in the orders the
//! host code runs in. Each needs a function without `goto` (then a
//! statement runs only after the statements before it in its block), and
//! a point outside every loop and lambda of the function (then it runs
//! once, after what precedes it, before what follows it).

use super::{children, strip_parentheses, Host, Local, DEPTH};
use crate::syntax::node_text;
use std::collections::HashMap;
use tree_sitter::Node;

/// At most this many iterations of a host loop are run on constants.
const MAX_HOST_ITERATIONS: usize = 64;

/// A variable's value from a point on.
#[derive(Clone, Copy, Debug)]
pub(super) struct Held {
    pub value: i64,
    /// The value holds at a read that starts at or after this offset.
    pub from: usize,
    /// ... and ends at or before this one (its first write after `from`).
    pub until: usize,
}

impl<'a, 't> Host<'a, 't> {
    /// Whether `n` runs at most once per call of the host function, after
    /// every statement before it: outside every loop and lambda of the
    /// function, in a function without `goto`.
    pub(super) fn runs_in_order(&self, n: Node) -> bool {
        let mut cur = n.parent();
        while let Some(p) = cur {
            match p.kind() {
                "function_definition" => {
                    return !node_text(self.text, p).contains("goto");
                }
                "for_statement" | "for_range_loop" | "while_statement" | "do_statement"
                | "lambda_expression" => return false,
                _ => cur = p.parent(),
            }
        }
        false
    }

    /// The value a read of `name` at `n` sees from [`Host::held`], if any.
    pub(super) fn held_at(&self, name: &str, n: Node) -> Option<i64> {
        if self.declared_more_than_once(name) || !self.runs_in_order(n) {
            return None;
        }
        let covers = |h: &Held| n.start_byte() >= h.from && n.end_byte() <= h.until;
        // From the initializer (or a loop of constants), or from a later
        // plain write that runs before the launch (`ordered_writes`).
        self.held
            .get(name)
            .filter(|h| covers(h))
            .or_else(|| {
                self.held_after_writes
                    .iter()
                    .find(|(v, h)| v == name && covers(h))
                    .map(|(_, h)| h)
            })
            .map(|h| h.value)
    }

    /// What a call that writes the local `name` through `&name` (a
    /// helper handing back a kernel and its size: `init(&f, &bs)`) leaves
    /// in it: `value` holds from the call's end up to the next write.
    /// Only for a call that runs in order (once, after what precedes it)
    /// and a local no other write before the launch precedes the call
    /// (then nothing written before can reach it later: no pointer or
    /// reference to it taken earlier, no loop around the call).
    pub(super) fn hold_after_call(&mut self, name: &str, call: Node<'t>, value: i64) {
        if self.declared_more_than_once(name)
            || !self.types.contains_key(name)
            || !self.runs_in_order(call)
        {
            return;
        }
        let in_range = self
            .types
            .get(name)
            .and_then(|t| super::integer_range(t))
            .is_some_and(|(lo, hi)| (lo..=hi).contains(&value));
        if !in_range {
            return;
        }
        let mut until = usize::MAX;
        for (v, w) in &self.write_nodes {
            if v != name {
                continue;
            }
            let inside = w.start_byte() >= call.start_byte() && w.end_byte() <= call.end_byte();
            if inside {
                continue;
            }
            if w.start_byte() < call.end_byte() {
                return;
            }
            until = until.min(w.start_byte());
        }
        self.held.insert(
            name.to_string(),
            Held {
                value,
                from: call.end_byte(),
                until,
            },
        );
    }

    /// [`Host::held_at`] for a name read at the offset `at` (a name in the
    /// body of a macro used there).
    pub(super) fn held_at_offset(&self, name: &str, at: usize) -> Option<i64> {
        let h = self.held.get(name)?;
        if self.declared_more_than_once(name) || at < h.from || at >= h.until {
            return None;
        }
        let mut root = self.call;
        while let Some(p) = root.parent() {
            root = p;
        }
        let use_site = root.descendant_for_byte_range(at, at)?;
        self.runs_in_order(use_site).then_some(h.value)
    }

    /// Whether `name` is declared more than once in the scopes around the
    /// launch (a parameter and a local, or two locals): a read of it may
    /// then be of either.
    pub(super) fn declared_more_than_once(&self, name: &str) -> bool {
        self.declarations.get(name).is_some_and(|n| *n > 1)
    }

    /// The start of the first write to `name` that may run before the
    /// launch (`usize::MAX`: none).
    pub(super) fn first_write(&self, name: &str) -> usize {
        self.next_write(name, 0)
    }

    /// The start of the first write to `name` that starts at or after the
    /// offset `from` and may run before the launch (`usize::MAX`: none).
    pub(super) fn next_write(&self, name: &str, from: usize) -> usize {
        self.write_nodes
            .iter()
            .filter(|(v, w)| v == name && w.start_byte() >= from)
            .map(|(_, w)| w.start_byte())
            .min()
            .unwrap_or(usize::MAX)
    }

    /// The parameters a caller binds that the function writes: their bound
    /// value holds up to their first write. Then the locals declared with
    /// a known value and written later: it holds from their declaration
    /// (run in order) up to their first write.
    pub(super) fn hold_until_written(&mut self, unbound: HashMap<String, i64>) {
        for (name, value) in unbound {
            let until = self.first_write(&name);
            self.held.insert(
                name,
                Held {
                    value,
                    from: 0,
                    until,
                },
            );
        }
        // In order of declaration: an initializer may read an earlier one.
        let mut written_locals: Vec<(String, Node<'t>)> = self
            .initializers
            .iter()
            .filter(|(name, _)| !matches!(self.locals.get(*name), Some(Local::Scalar(_))))
            .map(|(name, init)| (name.clone(), *init))
            .collect();
        written_locals.sort_by_key(|(_, init)| init.start_byte());
        for (name, init) in written_locals {
            if self.held.contains_key(&name) || !self.runs_in_order(init) {
                continue;
            }
            let Some(value) = self.value(init) else {
                continue;
            };
            let in_range = self
                .types
                .get(&name)
                .and_then(|t| type_range(t))
                .is_some_and(|(lo, hi)| (lo..=hi).contains(&value));
            if in_range {
                let held = Held {
                    value,
                    from: init.end_byte(),
                    until: self.first_write(&name),
                };
                self.held.insert(name, held);
            }
        }
    }

    /// Runs the `for` loops that end before the launch on constants: a
    /// loop that is a statement of a block around the launch, outside
    /// every other loop, whose initializer and update write only
    /// variables nothing else in the function writes, whose condition and
    /// update read only those and constants, each with a value known where
    /// the loop starts, and whose body has no `break` (the loop ends only
    /// when its condition fails). Those variables then hold their values
    /// at the loop's end from the loop on.
    pub(super) fn run_constant_loops(&mut self) {
        let Some(func) = super::enclosing_function(self.call) else {
            return;
        };
        let mut block = self.call.parent();
        while let Some(b) = block {
            if b.id() == func.id() {
                break;
            }
            if b.kind() == "compound_statement" {
                for s in children(b) {
                    if s.end_byte() > self.call.start_byte() {
                        break;
                    }
                    if s.kind() == "for_statement" && self.runs_in_order(s) {
                        if let Some(done) = self.constant_loop(s) {
                            self.held.extend(done);
                        }
                    }
                }
            }
            block = b.parent();
        }
    }

    /// The values the variables of the loop `f` hold after it (see
    /// [`Host::run_constant_loops`]).
    fn constant_loop(&self, f: Node<'t>) -> Option<HashMap<String, Held>> {
        let cond = f.child_by_field_name("condition")?;
        let body = f.child_by_field_name("body")?;
        let mut steps: Vec<Node> = Vec::new();
        if let Some(u) = f.child_by_field_name("update") {
            comma_parts(u, &mut steps);
        }
        let mut inits: Vec<Node> = Vec::new();
        if let Some(i) = f.child_by_field_name("initializer") {
            if i.kind() == "declaration" {
                return None;
            }
            comma_parts(i, &mut inits);
        }
        if has_break(body) {
            return None;
        }
        let mut vars: Vec<String> = Vec::new();
        for s in inits.iter().chain(&steps) {
            let target = s
                .child_by_field_name("left")
                .or_else(|| s.child_by_field_name("argument"))
                .filter(|t| t.kind() == "identifier")?;
            let name = node_text(self.text, target).to_string();
            if !vars.contains(&name) {
                vars.push(name);
            }
        }
        // Written only by the loop's initializer and update, declared once.
        let header: Vec<Node> = ["initializer", "update"]
            .iter()
            .filter_map(|f_| f.child_by_field_name(f_))
            .collect();
        let in_header = |n: &Node| {
            header
                .iter()
                .any(|h| n.start_byte() >= h.start_byte() && n.end_byte() <= h.end_byte())
        };
        for v in &vars {
            let elsewhere = self
                .write_nodes
                .iter()
                .any(|(w, n)| w == v && !in_header(n));
            let typed = self.types.get(v).is_some_and(|t| type_range(t).is_some());
            if elsewhere || !typed || self.declared_more_than_once(v) {
                return None;
            }
        }
        let mut env: HashMap<String, i64> = HashMap::new();
        for v in &vars {
            env.insert(v.clone(), self.value_where_loop_starts(v, f)?);
        }
        for s in &inits {
            self.step(*s, &mut env)?;
        }
        for _ in 0..MAX_HOST_ITERATIONS {
            if self.eval_in(super::unwrap_condition(cond), &env, 0)? == 0 {
                let from = f.end_byte();
                return Some(
                    vars.into_iter()
                        .map(|v| {
                            let held = Held {
                                value: env[&v],
                                from,
                                until: usize::MAX,
                            };
                            (v, held)
                        })
                        .collect(),
                );
            }
            for s in &steps {
                self.step(*s, &mut env)?;
            }
        }
        None
    }

    /// The value of `name` where the loop `f` starts, held up to its first
    /// write (in the loop's header).
    fn value_where_loop_starts(&self, name: &str, f: Node<'t>) -> Option<i64> {
        let h = self.held.get(name)?;
        (h.from <= f.start_byte() && f.start_byte() <= h.until).then_some(h.value)
    }

    /// One assignment or increment of the loop's header, on `env`; `None`
    /// when it is another expression or its value leaves the variable's
    /// type.
    fn step(&self, s: Node, env: &mut HashMap<String, i64>) -> Option<()> {
        let (name, v) = match s.kind() {
            "update_expression" => {
                let a = s.child_by_field_name("argument")?;
                let name = node_text(self.text, a).to_string();
                let old = *env.get(&name)?;
                let op = node_text(self.text, s.child_by_field_name("operator")?);
                let v = match op {
                    "++" => old.checked_add(1)?,
                    "--" => old.checked_sub(1)?,
                    _ => return None,
                };
                (name, v)
            }
            "assignment_expression" => {
                let l = s.child_by_field_name("left")?;
                let name = node_text(self.text, l).to_string();
                let r = self.eval_in(s.child_by_field_name("right")?, env, 0)?;
                let op = node_text(self.text, s.child_by_field_name("operator")?);
                let v = if op == "=" {
                    r
                } else {
                    let old = *env.get(&name)?;
                    let bin = crate::frontend::binop(op.strip_suffix('=')?)?;
                    crate::model::fold(bin, old, r)?
                };
                (name, v)
            }
            _ => return None,
        };
        let (lo, hi) = type_range(self.types.get(&name)?)?;
        if !(lo..=hi).contains(&v) {
            return None;
        }
        env.insert(name, v);
        Some(())
    }

    /// The value of a host expression with the variables of `env` bound.
    fn eval_in(&self, n: Node, env: &HashMap<String, i64>, depth: usize) -> Option<i64> {
        if depth > DEPTH {
            return None;
        }
        let ev = |m: Node| self.eval_in(m, env, depth + 1);
        match n.kind() {
            "identifier" => {
                let name = node_text(self.text, n);
                match env.get(name) {
                    Some(v) => Some(*v),
                    // A constant only: never a variable's value elsewhere.
                    None if !self.locals.contains_key(name) && !self.types.contains_key(name) => {
                        self.bound
                            .get(name)
                            .copied()
                            .or_else(|| self.constant(name, depth))
                    }
                    None if !self.locals.contains_key(name) => self.bound.get(name).copied(),
                    None => match self.locals.get(name) {
                        Some(Local::Scalar(_)) => self.value(n),
                        _ => None,
                    },
                }
            }
            "parenthesized_expression" => ev(n.named_child(0)?),
            "binary_expression" => {
                let a = ev(n.child_by_field_name("left")?)?;
                let b = ev(n.child_by_field_name("right")?)?;
                let op = node_text(self.text, n.child_by_field_name("operator")?);
                crate::model::fold(crate::frontend::binop(op)?, a, b)
            }
            "unary_expression" => {
                let v = ev(n.child_by_field_name("argument")?)?;
                match node_text(self.text, n.child_by_field_name("operator")?) {
                    "-" => v.checked_neg(),
                    "!" => Some(i64::from(v == 0)),
                    _ => None,
                }
            }
            _ => {
                let names = super::names_read(self.text, n);
                if names.iter().any(|m| env.contains_key(m)) {
                    return None;
                }
                self.value(n)
            }
        }
    }

    /// Whether the host variable `name` holds a power of two or zero at
    /// every point of the function before the launch, and whether it is
    /// then also below `2^31` (a signed `int` that only halves): declared
    /// in the function with such a value, and each write to it shifts,
    /// multiplies or divides it by a power of two (a signed one only
    /// halves, so it never reaches the sign bit); or a parameter every
    /// call passes such a value, which it only halves.
    pub(super) fn always_power_of_two(&self, name: &str) -> Option<bool> {
        if self.declared_more_than_once(name) {
            return None;
        }
        let ty = self.types.get(name)?;
        let signed = super::is_32_bit_signed_type_name(ty);
        if !signed && !super::is_unsigned_type_name(ty) {
            return None;
        }
        // A parameter every call passes a power of two.
        if let Some(below_sign_bit) = self.power_params.get(name) {
            let halves_only = self
                .write_nodes
                .iter()
                .filter(|(v, _)| v == name)
                .all(|(_, w)| {
                    matches!(
                        self.power_of_two_scaling(*w, name),
                        Some(super::Scaling::Halves)
                    )
                });
            return halves_only.then_some(*below_sign_bit);
        }
        let init = self.initializers.get(name)?;
        for (v, w) in &self.write_nodes {
            if v != name {
                continue;
            }
            match self.power_of_two_scaling(*w, name)? {
                super::Scaling::Halves => {}
                super::Scaling::Multiplies(_) if !signed => {}
                super::Scaling::Multiplies(_) => return None,
            }
        }
        if signed {
            let v = self.value(*init)?;
            return ((0..1 << 31).contains(&v) && v & (v - 1).max(0) == 0).then_some(true);
        }
        self.power_of_two_or_zero(*init, *init, 0).then_some(false)
    }

    /// Whether the launch argument `a` is a power of two or zero, and
    /// whether it is then also below `2^31`: a variable that always holds
    /// one ([`Host::always_power_of_two`]), divided or shifted right by
    /// constants.
    pub(super) fn power_of_two_argument(&self, a: Node, depth: usize) -> Option<bool> {
        if depth > DEPTH {
            return None;
        }
        let a = strip_parentheses(a);
        match a.kind() {
            "identifier" => self.always_power_of_two(node_text(self.text, a)),
            // An unsigned helper's result: below `2^32`, not `2^31`.
            "call_expression" => self.power_helper_call(a).then_some(false),
            "binary_expression" => {
                let op = node_text(self.text, a.child_by_field_name("operator")?);
                let amount = self.value(a.child_by_field_name("right")?);
                match super::scaling_keeps_power_of_two(op, amount)? {
                    super::Scaling::Halves => {
                        self.power_of_two_argument(a.child_by_field_name("left")?, depth + 1)
                    }
                    super::Scaling::Multiplies(_) => None,
                }
            }
            _ => None,
        }
    }
}

/// The expressions of a comma expression, in order.
fn comma_parts<'t>(n: Node<'t>, out: &mut Vec<Node<'t>>) {
    if n.kind() == "comma_expression" {
        for c in children(n) {
            comma_parts(c, out);
        }
    } else {
        out.push(strip_parentheses(n));
    }
}

/// Whether a loop body has a `break` of its own (not one of a nested loop
/// or `switch`) or a `goto`.
fn has_break(n: Node) -> bool {
    children(n).into_iter().any(|c| match c.kind() {
        "break_statement" | "goto_statement" => true,
        "for_statement" | "for_range_loop" | "while_statement" | "do_statement"
        | "switch_statement" => node_contains_goto(c),
        _ => has_break(c),
    })
}

fn node_contains_goto(n: Node) -> bool {
    n.kind() == "goto_statement" || children(n).into_iter().any(node_contains_goto)
}

/// The values of a 32-bit host integer type.
pub(super) fn type_range(ty: &str) -> Option<(i64, i64)> {
    if super::is_32_bit_signed_type_name(ty) {
        Some((i64::from(i32::MIN), i64::from(i32::MAX)))
    } else if matches!(
        ty.trim()
            .trim_start_matches("const ")
            .trim_start_matches("static ")
            .trim(),
        "unsigned" | "unsigned int" | "uint" | "uint32_t"
    ) {
        Some((0, i64::from(u32::MAX)))
    } else {
        None
    }
}
