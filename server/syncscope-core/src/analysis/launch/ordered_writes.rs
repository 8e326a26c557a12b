//! Values that plain writes give a host local in program order:
//! `w = 128;` or `w *= 2;` as a statement of a block around the launch,
//! outside every loop, its right side (and for a compound assignment the
//! value just before it) known there. The value holds from the write up to
//! the next write of the variable.
//!
//! [`Host::hold_until_written`] keeps a local's initializer only up to its
//! first write; these readings continue past writes that surely run before
//! the launch, whatever path the host takes: the write is a statement of a
//! block that also holds the launch (not under an `if`, not in a loop, not
//! in a `switch` body a `case` label may jump into the middle of).

use super::host_order::{type_range, Held};
use super::Host;
use crate::syntax::node_text;
use tree_sitter::Node;

impl<'a, 't> Host<'a, 't> {
    /// Records the values of [`module`](self) in `held_after_writes`.
    pub(super) fn hold_after_ordered_writes(&mut self) {
        let mut writes: Vec<(String, Node<'t>)> = self.write_nodes.clone();
        writes.sort_by_key(|(_, w)| w.start_byte());
        for (name, w) in writes {
            if let Some(held) = self.ordered_write(&name, w) {
                self.held_after_writes.push((name, held));
            }
        }
    }

    /// The value the write `w` gives `name` and where it holds, when `w`
    /// is a plain assignment of `name` that surely runs before the launch.
    fn ordered_write(&self, name: &str, w: Node<'t>) -> Option<Held> {
        if w.kind() != "assignment_expression" || self.declared_more_than_once(name) {
            return None;
        }
        // A lambda that writes the variable may run at any of its calls,
        // after this write too, wherever its text is.
        let in_lambda = |n: &Node| {
            let mut cur = n.parent();
            while let Some(p) = cur {
                if p.kind() == "lambda_expression" {
                    return true;
                }
                cur = p.parent();
            }
            false
        };
        if self
            .write_nodes
            .iter()
            .any(|(v, n)| v == name && in_lambda(n))
        {
            return None;
        }
        let statement = w.parent().filter(|p| p.kind() == "expression_statement")?;
        if !self.runs_in_order(w) || !self.encloses_launch(statement.parent()?) {
            return None;
        }
        let left = w.child_by_field_name("left")?;
        if left.kind() != "identifier" || node_text(self.text, left) != name {
            return None;
        }
        let right = self.value(w.child_by_field_name("right")?)?;
        let op = node_text(self.text, w.child_by_field_name("operator")?);
        let value = if op == "=" {
            right
        } else {
            let before = self.value_before(name, w.start_byte())?;
            let bin = crate::frontend::binop(op.strip_suffix('=')?)?;
            crate::model::fold(bin, before, right)?
        };
        let (lo, hi) = type_range(self.types.get(name)?)?;
        if !(lo..=hi).contains(&value) {
            return None;
        }
        let from = w.end_byte();
        let until = self.next_write(name, from);
        Some(Held { value, from, until })
    }

    /// Whether `block` is a block the launch is in, entered only at its
    /// start: every statement of it before the launch's statement runs
    /// before the launch.
    fn encloses_launch(&self, block: Node) -> bool {
        let holds_call = block.start_byte() <= self.call.start_byte()
            && self.call.end_byte() <= block.end_byte();
        let jumped_into = block
            .parent()
            .is_some_and(|p| p.kind() == "switch_statement")
            || super::children(block)
                .iter()
                .any(|s| s.kind() == "case_statement");
        block.kind() == "compound_statement" && holds_call && !jumped_into
    }

    /// The value `name` holds just before the point `at`, from its
    /// initializer or an earlier ordered write.
    fn value_before(&self, name: &str, at: usize) -> Option<i64> {
        let holds = |h: &Held| h.from <= at && at <= h.until;
        self.held
            .get(name)
            .filter(|h| holds(h))
            .or_else(|| {
                self.held_after_writes
                    .iter()
                    .rev()
                    .find(|(v, h)| v == name && holds(h))
                    .map(|(_, h)| h)
            })
            .map(|h| h.value)
    }
}
