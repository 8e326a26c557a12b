//! The commit count of a block-scope pipeline's producer where a loop
//! commits a stage only while a monotone guard holds (a lookahead loop that
//! stops filling the ring once the input is consumed):
//!
//! ```text
//! for (; y <= bound(pos); y += c, ++x)   // x, y carried over outer iterations
//!     if (y <= E) { producer_acquire(); copies; producer_commit(); }
//! ```
//!
//! The commit count is no closed form of the loop's iterations (it steps
//! only while `y <= E`), so the model would lose the stage a copy fills.
//! It is one anyway wherever the guard holds: the relation
//! `P: g(y) ⇒ commits == x + D` (with `D = commits - x` where the outermost
//! loop of the argument is entered) holds at the head of every such loop:
//!  * on entry, trivially (that is what `D` is);
//!  * across an iteration of the committing loop: it steps `x` by 1 and
//!    `y` by `c`, and `commits` by 1 exactly when `g(y)` holds (the dry run
//!    shows these end values); `g` can only turn from true to false as `y`
//!    moves (`E` is fixed, `y` moves one way), so either both sides step
//!    together, or `g` is false now and for good;
//!  * across an iteration of an enclosing loop: nothing in it but the
//!    committing loop changes `x`, `y` or the commit count (checked on the
//!    syntax, aliases and pipeline method calls included).
//!
//! The commit count at the committing loop's iteration is then
//! `ite(g(y), x + D, unknown)`; a copy under the guard (`if (y <= E)` on
//! its path) has the exact stage `x + D`. Anything short of this keeps the
//! count unknown, and the pipeline's exact model is given up (named).

use super::*;
use std::collections::BTreeSet;

/// A loop statement's enclosing loops, as the lowering enters them: where
/// each is in the source and the values its candidates held on entry (see
/// `Lowerer::loop_statement`).
#[derive(Clone, Debug)]
pub(in crate::frontend::lower) struct EnclosingLoop {
    pub(in crate::frontend::lower) range: (usize, usize),
    pub(in crate::frontend::lower) entries: Vec<(usize, String, Value)>,
}

/// A commit count that steps with a counter of the same loop under a
/// monotone guard (see the module's comment).
pub(in crate::frontend::lower) struct Lockstep {
    /// The commit count's candidate, the guard's variable's and the
    /// counter's (indices into the loop's candidates).
    pub(in crate::frontend::lower) commits: usize,
    pub(in crate::frontend::lower) moving: usize,
    pub(in crate::frontend::lower) counter: usize,
    /// The guard over the entry value of the moving variable.
    pub(in crate::frontend::lower) guard: Expr,
    /// `commits - counter` where the argument starts.
    pub(in crate::frontend::lower) offset: Expr,
}

/// The pipeline methods, and the counter each steps (`None`: none).
const PIPE_METHODS: [(&str, Option<&str>); 5] = [
    ("producer_acquire", None),
    ("producer_commit", Some("commits")),
    ("consumer_wait", Some("waits")),
    ("consumer_release", Some("releases")),
    ("quit", None),
];

fn is_loop_kind(kind: &str) -> bool {
    matches!(kind, "for_statement" | "while_statement" | "do_statement")
}

fn contains(outer: Node, inner: Node) -> bool {
    outer.start_byte() <= inner.start_byte() && inner.end_byte() <= outer.end_byte()
}

/// The children of `node` to read when the part `exclude` is left out:
/// `None` when `node` is `exclude`; `node` itself when it does not hold it;
/// its children when it does and is a statement that only groups others
/// (so that nothing of `node` itself is missed); an error otherwise.
fn around<'n>(node: Node<'n>, exclude: Option<Node<'n>>) -> Result<Vec<Node<'n>>, ()> {
    let Some(ex) = exclude else {
        return Ok(vec![node]);
    };
    if node == ex {
        return Ok(Vec::new());
    }
    if !contains(node, ex) {
        return Ok(vec![node]);
    }
    let grouping = matches!(
        node.kind(),
        "compound_statement"
            | "if_statement"
            | "else_clause"
            | "condition_clause"
            | "for_statement"
            | "while_statement"
            | "do_statement"
            | "labeled_statement"
            | "switch_statement"
            | "case_statement"
    );
    if !grouping {
        return Err(());
    }
    let mut out = Vec::new();
    let mut c = node.walk();
    for ch in node.named_children(&mut c) {
        out.extend(around(ch, exclude)?);
    }
    Ok(out)
}

impl<'a, 't> Lowerer<'a, 't> {
    /// The pipeline counters (`commits`, `waits`, `releases`) that code may
    /// change through the name `name`: those its method calls on `name`
    /// step; `None` (any of them) when the code uses `name` any other way
    /// than as such a call's object or as the pipeline argument of
    /// `memcpy_async` (passed to a function, aliased, a method the model
    /// does not know).
    pub(in crate::frontend::lower) fn pipe_counters_changed(
        &self,
        name: &str,
        nodes: &[Node],
    ) -> Option<HashSet<&'static str>> {
        // Only a plain name is followed (not a member path `s.pipe`, which
        // no identifier of the code spells).
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        let mut out = HashSet::new();
        let mut stack: Vec<Node> = nodes.to_vec();
        while let Some(n) = stack.pop() {
            if n.kind() == "identifier" && self.text(n) == name {
                let parent = n.parent()?;
                match parent.kind() {
                    "field_expression" if parent.field("argument") == Some(n) => {
                        let call = parent.parent()?;
                        if call.kind() != "call_expression"
                            || call.field("function") != Some(parent)
                        {
                            return None;
                        }
                        let method = parent.field("field").map(|f| self.text(f))?;
                        let (_, counter) = PIPE_METHODS.iter().find(|(m, _)| *m == method)?;
                        out.extend(*counter);
                    }
                    "argument_list" => {
                        let call = parent.parent()?;
                        // libcu++'s own (a function of the code by that
                        // name might commit).
                        let callee = call.field("function").map(|f| self.text(f))?;
                        let callee = callee.trim().trim_start_matches("::");
                        if !matches!(callee, "cuda::memcpy_async" | "memcpy_async")
                            || self.file.functions.contains_key("memcpy_async")
                        {
                            return None;
                        }
                    }
                    _ => return None,
                }
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        Some(out)
    }

    /// Which counter of a block-scope pipeline the local `(scope, name)`
    /// is, if it is one.
    pub(in crate::frontend::lower) fn pipe_counter_of(
        &self,
        scope: usize,
        name: &str,
    ) -> Option<&'static str> {
        self.block_pipes.values().find_map(|p| {
            if p.scope != scope {
                return None;
            }
            ["commits", "waits", "releases"]
                .into_iter()
                .find(|c| p.counter_keys().iter().any(|k| k == name && k.ends_with(c)))
        })
    }

    /// The locals that code (`nodes`, leaving out the part `exclude`) may
    /// assign: those of `resolve_assigned` for each name it assigns, less
    /// the pipeline counters no method call there steps. `None` when the
    /// part left out sits in code the walk cannot split.
    pub(in crate::frontend::lower) fn assigned_targets(
        &mut self,
        nodes: &[Node],
        exclude: Option<Node>,
    ) -> Option<Vec<(usize, String)>> {
        let mut parts = Vec::new();
        for n in nodes {
            parts.extend(around(*n, exclude).ok()?);
        }
        let mut names = HashSet::new();
        for n in &parts {
            names.extend(assigned_names(
                *n,
                &self.src,
                self.file,
                &mut self.assigned_memo,
            ));
        }
        let mut names: Vec<String> = names.into_iter().collect();
        names.sort();
        let mut out = Vec::new();
        for name in names {
            let targets = self.resolve_assigned(&name);
            let changed = if targets
                .iter()
                .any(|(s, t)| self.pipe_counter_of(*s, t).is_some())
            {
                self.pipe_counters_changed(&name, &parts)
            } else {
                None
            };
            for (scope, target) in targets {
                if let (Some(changed), Some(counter)) =
                    (&changed, self.pipe_counter_of(scope, &target))
                {
                    if !changed.contains(counter) {
                        continue;
                    }
                }
                out.push((scope, target));
            }
        }
        Some(out)
    }

    /// The stage of a copy whose commit count is a lockstep one,
    /// `ite(g, x + D, unknown)`, where the path holds `g` (as one of its
    /// conjuncts): `x + D`. `None` for any other count, or where the path
    /// does not show the guard.
    pub(in crate::frontend::lower) fn lockstep_stage(&self, commits: &Expr) -> Option<Expr> {
        let Expr::Ite(guard, exact, otherwise) = commits else {
            return None;
        };
        let Expr::Var(unknown) = &**otherwise else {
            return None;
        };
        if !self.lockstep_unknowns.contains(&unknown.name) {
            return None;
        }
        let mut stack: Vec<&Expr> = self.path.iter().collect();
        while let Some(c) = stack.pop() {
            match c {
                Expr::Bin(BinOp::And, a, b) => {
                    stack.push(a);
                    stack.push(b);
                }
                _ if c == &**guard => return Some((**exact).clone()),
                _ => {}
            }
        }
        None
    }

    /// The commit counts of the loop `node` that step with one of its
    /// counters under a monotone guard (see the module's comment), from
    /// its dry run: the candidates, their updates and their values at the
    /// end of the iteration.
    pub(in crate::frontend::lower) fn lockstep_commits(
        &mut self,
        node: Node,
        cands: &[(usize, String, Value)],
        updates: &[Update],
        ends: &[Value],
    ) -> Vec<Lockstep> {
        let mut out = Vec::new();
        if self.block_pipes.is_empty() {
            return out;
        }
        let body = node.field("body");
        let cond = node.field("condition");
        if body.is_some_and(|b| {
            let j = jumps(b, &mut self.jumps_memo);
            j.leaves || j.continues
        }) {
            return out;
        }
        for (ci, (scope, name, _)) in cands.iter().enumerate() {
            if self.pipe_counter_of(*scope, name) != Some("commits")
                || !matches!(updates[ci], Update::Havoc(_))
            {
                continue;
            }
            if let Some(l) = self.lockstep_of(node, cond, ci, cands, updates, ends) {
                out.push(l);
            }
        }
        out
    }

    fn lockstep_of(
        &mut self,
        node: Node,
        cond: Option<Node>,
        ci: usize,
        cands: &[(usize, String, Value)],
        updates: &[Update],
        ends: &[Value],
    ) -> Option<Lockstep> {
        let marker = entry_marker(&cands[ci].1);
        let is_x = |e: &Expr| matches!(e, Expr::Var(v) if *v.name == *marker);
        let step_of = |e: &Expr| -> Option<i64> {
            if is_x(e) {
                return Some(0);
            }
            match e {
                Expr::Bin(BinOp::Add, a, b) if is_x(a) => b.as_const(),
                Expr::Bin(BinOp::Add, a, b) if is_x(b) => a.as_const(),
                _ => None,
            }
        };
        // The count steps by one exactly when `guard` holds.
        let Value::Int(Expr::Ite(c, a, b)) = &ends[ci] else {
            return None;
        };
        let guard = match (step_of(a)?, step_of(b)?) {
            (1, 0) => (**c).clone(),
            (0, 1) => Expr::not((**c).clone()),
            _ => return None,
        };
        // The guard names one other candidate's entry value (the moving
        // variable) and nothing that changes while the loops run: no loop
        // counter, no per-iteration unknown.
        let mut entries = BTreeSet::new();
        let mut varying = false;
        guard.for_each_var(&mut |v| {
            if is_entry(v) {
                entries.insert(v.clone());
            } else if matches!(v.kind, VarKind::Counter { .. })
                || matches!(v.kind, VarKind::Unknown { .. }) && v.name.contains('#')
            {
                varying = true;
            }
        });
        if varying || entries.len() != 1 {
            return None;
        }
        let moving_var = entries.into_iter().next()?;
        let yi = cands
            .iter()
            .position(|(_, n, _)| *entry_marker(n) == *moving_var.name)?;
        let Update::Add(step) = &updates[yi] else {
            return None;
        };
        let step = step.as_const().filter(|c| *c != 0)?;
        if !monotone_guard(&guard, &moving_var, step) {
            return None;
        }
        // The counter stepping with it: another candidate stepped by one.
        let xi = cands.iter().enumerate().position(|(i, (s, n, v))| {
            i != ci
                && matches!(v, Value::Int(_))
                && self.pipe_counter_of(*s, n).is_none()
                && matches!(&updates[i], Update::Add(Expr::Const(1)))
        })?;
        // The loop's condition must not move them: its last, failing
        // evaluation is no iteration.
        let keys = [ci, xi, yi].map(|i| (cands[i].0, cands[i].1.clone()));
        if let Some(c) = cond {
            let changed = self.assigned_targets(&[c], None)?;
            if changed.iter().any(|t| keys.contains(t)) {
                return None;
            }
        }
        // `commits - counter` and `commits` where a loop is entered.
        let offset = |entries: &[(usize, String, Value)]| -> Option<(Expr, Expr)> {
            let value = |k: &(usize, String)| {
                entries.iter().find_map(|(s, n, v)| match v {
                    Value::Int(e) if (*s, n) == (k.0, &k.1) => Some(e.clone()),
                    _ => None,
                })
            };
            let count = value(&keys[0])?;
            Some((
                Expr::bin(BinOp::Sub, count.clone(), value(&keys[1])?),
                count,
            ))
        };
        let (mut d, mut start_count) = offset(cands)?;
        // Out through the enclosing loops that change none of them but
        // through the loop inside.
        let mut inner = node;
        for frame in self.enclosing_loops.clone().iter().rev() {
            // The nearest loop around `inner` in the source must be this
            // one (not so for a loop in a function or lambda called here).
            let mut outer = inner.parent();
            while let Some(o) = outer {
                if is_loop_kind(o.kind()) {
                    break;
                }
                outer = o.parent();
            }
            let Some(o) = outer.filter(|o| (o.start_byte(), o.end_byte()) == frame.range) else {
                break;
            };
            let parts: Vec<Node> = ["body", "update", "condition"]
                .into_iter()
                .filter_map(|f| o.field(f))
                .collect();
            let Some(changed) = self.assigned_targets(&parts, Some(inner)) else {
                break;
            };
            if changed.iter().any(|t| keys.contains(t)) {
                break;
            }
            let Some((outer_d, outer_count)) = offset(&frame.entries) else {
                break;
            };
            (d, start_count) = (outer_d, outer_count);
            inner = o;
        }
        // The count where the argument starts must be known (a closed
        // form, not a value a loop left unknown): the stage is exact only
        // then, as for any other count of the window.
        if start_count.mentions(&mut |v| matches!(v.kind, VarKind::Unknown { .. })) {
            return None;
        }
        Some(Lockstep {
            commits: ci,
            moving: yi,
            counter: xi,
            guard,
            offset: d,
        })
    }
}

/// Whether `guard` (a comparison linear in `moving`, `moving` stepping by
/// `step` each time) can only turn from true to false: `a < b` / `a <= b`
/// with `a - b` growing (or fixed), `a > b` / `a >= b` with it shrinking.
fn monotone_guard(guard: &Expr, moving: &Var, step: i64) -> bool {
    let Expr::Bin(op, a, b) = guard else {
        return false;
    };
    let (Some(ca), Some(cb)) = (coefficient(a, moving), coefficient(b, moving)) else {
        return false;
    };
    let Some(drift) = ca.checked_sub(cb).and_then(|c| c.checked_mul(step)) else {
        return false;
    };
    match op {
        BinOp::Lt | BinOp::Le => drift >= 0,
        BinOp::Gt | BinOp::Ge => drift <= 0,
        _ => false,
    }
}

/// The coefficient of `v` in `e` when `e` is linear in it (sums,
/// differences, negation, constant factors).
fn coefficient(e: &Expr, v: &Var) -> Option<i64> {
    if !e.mentions(&mut |w| w == v) {
        return Some(0);
    }
    match e {
        Expr::Var(w) if w == v => Some(1),
        Expr::Bin(BinOp::Add, a, b) => coefficient(a, v)?.checked_add(coefficient(b, v)?),
        Expr::Bin(BinOp::Sub, a, b) => coefficient(a, v)?.checked_sub(coefficient(b, v)?),
        Expr::Un(UnOp::Neg, a) => coefficient(a, v)?.checked_neg(),
        Expr::Bin(BinOp::Mul, a, b) => match (a.as_const(), b.as_const()) {
            (Some(c), _) => coefficient(b, v)?.checked_mul(c),
            (_, Some(c)) => coefficient(a, v)?.checked_mul(c),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str) -> Var {
        Var::new(
            name,
            VarKind::Unknown {
                scope: Scope::Thread,
                lo: i64::MIN,
                hi: i64::MAX,
            },
        )
    }

    #[test]
    fn a_guard_is_monotone_only_when_it_can_only_turn_false() {
        let y = var("@entry:ahead");
        let e = Expr::Var(var("last"));
        let yv = Expr::Var(y.clone());
        // `ahead <= last`, `ahead` growing: true, then false for good.
        let le = Expr::bin(BinOp::Le, yv.clone(), e.clone());
        assert!(monotone_guard(&le, &y, 32));
        // ... but `ahead` shrinking turns it from false to true.
        assert!(!monotone_guard(&le, &y, -32));
        // `last >= ahead` and `last - 2 * ahead > 0` with `ahead` growing.
        let ge = Expr::bin(BinOp::Ge, e.clone(), yv.clone());
        assert!(monotone_guard(&ge, &y, 1));
        let twice = Expr::bin(
            BinOp::Gt,
            Expr::bin(BinOp::Sub, e.clone(), Expr::mul(Expr::Const(2), yv.clone())),
            Expr::Const(0),
        );
        assert!(monotone_guard(&twice, &y, 4));
        assert!(!monotone_guard(&twice, &y, -4));
        // Equalities and products with run-time values are not.
        let eq = Expr::eq(yv.clone(), e.clone());
        assert!(!monotone_guard(&eq, &y, 1));
        let scaled = Expr::bin(BinOp::Le, Expr::mul(yv, e.clone()), e);
        assert!(!monotone_guard(&scaled, &y, 1));
    }
}
