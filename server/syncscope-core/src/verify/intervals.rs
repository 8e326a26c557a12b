//! Barrier intervals by barrier aligning (after Faial, seed 002).
//!
//! An interval is a set of access *instances* that two threads may execute
//! between the same two barriers. An instance is an access plus the binding
//! of the iteration counters of its enclosing synchronized loops to values
//! both threads share (`k`, `k + 1`, `0`, the last iteration) and extra
//! per-thread constraints. Unsynchronized loops leave their counters free, so
//! each thread picks its own iteration. A synchronized loop
//! `for k { H; sync; ...; T }` yields: the code before it with `H[0]`; the
//! tail of iteration `k` with the head of iteration `k + 1`; its inner
//! intervals; and `T[last]` with the code after it. Nested loops compose.
//! An iteration that may pass no barrier (barriers under a condition, an
//! inner loop that may not run) joins the intervals on both sides of it.

use crate::model::{BarrierKind, Expr, Kernel, Stmt, Var, VarKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Level {
    /// Threads of one warp: every barrier orders them.
    Warp,
    /// Threads of one block: block and grid barriers order them.
    Block,
    /// Threads of different blocks: only grid barriers order them.
    Grid,
}

impl Level {
    pub(crate) fn splits(self, kind: BarrierKind) -> bool {
        match self {
            Level::Warp => true,
            Level::Block => kind != BarrierKind::Warp,
            Level::Grid => kind == BarrierKind::Grid,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Instance {
    /// The access id (`usize::MAX` marks the start of a loop body while aligning).
    pub access: usize,
    /// Counter → value shared by both threads.
    pub subst: Vec<(Var, Expr)>,
    /// Extra constraints for the executing thread.
    pub extra: Vec<Expr>,
    /// With a barrier skipped: how many times the walk had passed it, and
    /// the counters of enclosing loops that contain it. Two instances were
    /// separated by the barrier iff the tags differ or one of those
    /// counters differs between the two threads.
    pub tag: i64,
    pub skip_loops: Vec<Var>,
}

const MARKER: usize = usize::MAX;

impl Instance {
    fn rebind(&self, from: &Var, to: &Expr) -> Instance {
        let mut f = |v: &Var| (v == from).then(|| to.clone());
        Instance {
            access: self.access,
            subst: self
                .subst
                .iter()
                .map(|(k, e)| (k.clone(), e.subst(&mut f)))
                .collect(),
            extra: self.extra.iter().map(|e| e.subst(&mut f)).collect(),
            tag: self.tag,
            skip_loops: self.skip_loops.clone(),
        }
    }
}

pub(crate) type Interval = Vec<Instance>;

/// The intervals of `kernel` at `level`, ignoring barrier `skip` (used to
/// ask what removing a barrier would do). `may_hold` answers whether a
/// conjunction of uniform facts is satisfiable (loops that always run at
/// least once keep their alignment).
pub(crate) fn intervals(
    kernel: &Kernel,
    level: Level,
    skip: Option<usize>,
    may_hold: &mut dyn FnMut(&[Expr]) -> bool,
) -> Vec<Interval> {
    let mut b = Builder {
        level,
        skip,
        out: Vec::new(),
        crossed: 0,
        skip_loops: Vec::new(),
        exits: Vec::new(),
        may_hold,
    };
    let open = b.walk(&kernel.body, Vec::new(), &Ctx::default());
    b.emit(open);
    b.out.retain(|iv| iv.iter().any(|i| i.access != MARKER));
    b.out
}

/// [`intervals`] with barrier `skip` ignored, where `skip` is the
/// statement at `pos` of the kernel's top level: only the intervals around
/// it, the code between the top-level barriers that split at `level` before
/// and after it. Every other interval is the same with the barrier or
/// without it, and holds no two instances it separated (the barrier is in
/// no loop), so these are all the intervals the redundancy check needs,
/// built in time proportional to the code between those two barriers
/// rather than to the kernel.
pub(crate) fn intervals_around(
    kernel: &Kernel,
    level: Level,
    skip: usize,
    pos: usize,
    may_hold: &mut dyn FnMut(&[Expr]) -> bool,
) -> Vec<Interval> {
    let splits = |s: &Stmt| matches!(s, Stmt::Barrier(b) if b.id != skip && level.splits(b.kind));
    let body = &kernel.body;
    let start = body[..pos].iter().rposition(&splits).map_or(0, |p| p + 1);
    let end = body[pos..]
        .iter()
        .position(splits)
        .map_or(body.len(), |n| pos + n);
    let mut b = Builder {
        level,
        skip: Some(skip),
        out: Vec::new(),
        crossed: 0,
        skip_loops: Vec::new(),
        exits: Vec::new(),
        may_hold,
    };
    let open = b.walk(&body[start..end], Vec::new(), &Ctx::default());
    b.emit(open);
    b.out.retain(|iv| iv.iter().any(|i| i.access != MARKER));
    b.out
}

#[derive(Clone, Default)]
struct Ctx {
    subst: Vec<(Var, Expr)>,
    extra: Vec<Expr>,
    /// Facts that hold here (enclosing synchronized loops' guards).
    facts: Vec<Expr>,
}

impl Ctx {
    fn apply(&self, e: &Expr) -> Expr {
        e.subst(&mut |v: &Var| {
            self.subst
                .iter()
                .find(|(c, _)| c == v)
                .map(|(_, x)| x.clone())
        })
    }
}

struct Builder<'a> {
    level: Level,
    skip: Option<usize>,
    out: Vec<Interval>,
    crossed: i64,
    skip_loops: Vec<Var>,
    /// Per loop being walked, innermost last: each of its `break`s, as the
    /// guard under which it is taken and what was open there.
    exits: Vec<Vec<(Expr, Vec<Instance>)>>,
    may_hold: &'a mut dyn FnMut(&[Expr]) -> bool,
}

fn contains_barrier(stmts: &[Stmt], id: Option<usize>) -> bool {
    let Some(id) = id else { return false };
    let mut found = false;
    crate::model::walk(stmts, &mut |s| {
        if let Stmt::Barrier(b) = s {
            found |= b.id == id;
        }
    });
    found
}

impl Builder<'_> {
    fn splits(&self, stmts: &[Stmt]) -> bool {
        let mut found = false;
        crate::model::walk(stmts, &mut |s| {
            if let Stmt::Barrier(b) = s {
                found |= self.level.splits(b.kind) && Some(b.id) != self.skip;
            }
        });
        found
    }

    /// An instance from before a conditional that reaches its end past
    /// `branch`, whose top level has a splitting barrier, went through the
    /// other branch: its thread did not reach that barrier. Without this
    /// constraint it would meet the code after the barrier in `branch` even
    /// when both threads took `branch` (a uniform condition).
    fn skipped_branch(&self, before: &[Instance], branch: &[Stmt], out: &mut [Instance]) {
        let Some(guard) = branch.iter().find_map(|s| match s {
            Stmt::Barrier(b) if self.level.splits(b.kind) && Some(b.id) != self.skip => {
                Some(&b.guard)
            }
            _ => None,
        }) else {
            return;
        };
        for i in out.iter_mut() {
            if before.contains(i) {
                i.extra.push(Expr::not(guard.clone()));
            }
        }
    }

    fn emit(&mut self, mut iv: Interval) {
        dedup(&mut iv);
        if !iv.is_empty() {
            self.out.push(iv);
        }
    }

    fn walk(&mut self, stmts: &[Stmt], mut open: Vec<Instance>, ctx: &Ctx) -> Vec<Instance> {
        for s in stmts {
            match s {
                Stmt::Access(a) => open.push(Instance {
                    access: a.id,
                    subst: ctx.subst.clone(),
                    extra: ctx.extra.clone(),
                    tag: self.crossed,
                    skip_loops: self.skip_loops.clone(),
                }),
                Stmt::Barrier(b) => {
                    if Some(b.id) == self.skip {
                        self.crossed += 1;
                    } else if self.level.splits(b.kind) {
                        let done = std::mem::take(&mut open);
                        self.emit(done);
                    }
                }
                Stmt::If(t, e) => {
                    if self.splits(t) || self.splits(e) {
                        let c0 = self.crossed;
                        let mut o1 = self.walk(t, open.clone(), ctx);
                        let c1 = std::mem::replace(&mut self.crossed, c0);
                        let mut o2 = self.walk(e, open.clone(), ctx);
                        self.crossed = self.crossed.max(c1);
                        self.skipped_branch(&open, t, &mut o2);
                        self.skipped_branch(&open, e, &mut o1);
                        o1.extend(o2);
                        dedup(&mut o1);
                        open = o1;
                    } else {
                        open = self.walk(t, open, ctx);
                        open = self.walk(e, open, ctx);
                    }
                }
                Stmt::LoopExit(guard) => {
                    if let Some(exits) = self.exits.last_mut() {
                        exits.push((ctx.apply(guard), open.clone()));
                    }
                }
                Stmt::Loop(l) => {
                    let holds_skip = contains_barrier(&l.body, self.skip);
                    if holds_skip {
                        self.skip_loops.push(l.counter.clone());
                    }
                    open = self.walk_loop(l, open, ctx);
                    if holds_skip {
                        self.skip_loops.pop();
                    }
                }
            }
        }
        open
    }

    fn walk_loop(
        &mut self,
        l: &crate::model::Loop,
        open: Vec<Instance>,
        ctx: &Ctx,
    ) -> Vec<Instance> {
        if !self.splits(&l.body) {
            // No barrier: a `break` leaves with what the loop left open.
            self.exits.push(Vec::new());
            let open = self.walk(&l.body, open, ctx);
            self.exits.pop();
            return open;
        }
        let k = Var::new(format!("{}'", l.counter.name), VarKind::Shared);
        let mut ctx_k = ctx.clone();
        ctx_k.subst.push((l.counter.clone(), Expr::Var(k.clone())));
        let guard_k = ctx_k.apply(&l.guard);
        ctx_k.facts.push(Expr::bin(
            crate::model::BinOp::Ge,
            Expr::Var(k.clone()),
            Expr::Const(0),
        ));
        ctx_k.facts.push(guard_k);
        let mark = self.out.len();
        let marker = Instance {
            access: MARKER,
            subst: Vec::new(),
            extra: Vec::new(),
            tag: 0,
            skip_loops: Vec::new(),
        };
        self.exits.push(Vec::new());
        let mut tail = self.walk(&l.body, vec![marker], &ctx_k);
        let exits = self.exits.pop().unwrap_or_default();
        let barrier_free_path = tail.iter().any(|i| i.access == MARKER);
        // When an iteration passes no barrier: the constraints the markers
        // that reached the end of the body carry (the negated guards of the
        // barriers each barrier-free path skipped), over the loop's counter.
        let skipped = tail
            .iter()
            .filter(|i| i.access == MARKER)
            .map(|i| {
                // A constraint over an inner loop's aligning variables
                // (shared by every iteration of this loop) is left out.
                Expr::all(
                    i.extra
                        .iter()
                        .filter(|e| !e.mentions(&mut |v| v.name.contains('\'')))
                        .cloned(),
                )
            })
            .reduce(Expr::or)
            .unwrap_or_else(Expr::fals);
        tail.retain(|i| i.access != MARKER);
        let emitted: Vec<Interval> = self.out.drain(mark..).collect();
        let mut head = Vec::new();
        for iv in emitted {
            if iv.iter().any(|i| i.access == MARKER) {
                head.extend(iv.into_iter().filter(|i| i.access != MARKER));
            } else {
                self.out.push(iv);
            }
        }
        // A thread that leaves by `break` in iteration b meets the code after
        // the loop with what was open at the `break`: that part of iteration
        // b, and when it passed no barrier of b yet, what was open when b
        // began (the tail of an earlier iteration, or the code before the
        // loop).
        let mut left = Vec::new();
        let b = Expr::Var(Var::new(
            format!("{}'break", l.counter.name),
            VarKind::Shared,
        ));
        let ge = |e: &Expr, c: i64| Expr::bin(crate::model::BinOp::Ge, e.clone(), Expr::Const(c));
        let at = |e: &Expr, it: &Expr| e.subst(&mut |v: &Var| (v == &k).then(|| it.clone()));
        for (guard, was_open) in &exits {
            let taken_at_b = at(guard, &b);
            for i in was_open.iter().filter(|i| i.access != MARKER) {
                let mut i = i.rebind(&k, &b);
                i.extra.extend([ge(&b, 0), taken_at_b.clone()]);
                left.push(i);
            }
            if was_open.iter().any(|i| i.access == MARKER) {
                let prev = Expr::add(b.clone(), Expr::Const(-1));
                for i in &tail {
                    let mut i = i.rebind(&k, &prev);
                    i.extra.extend([ge(&b, 1), taken_at_b.clone()]);
                    left.push(i);
                }
                let taken_first = at(guard, &Expr::Const(0));
                for i in &open {
                    let mut i = i.clone();
                    i.extra.push(taken_first.clone());
                    left.push(i);
                }
            }
        }
        let mut after = if barrier_free_path {
            let skipped = Skipped {
                counter: &l.counter,
                cond: &skipped,
            };
            self.align_with_skipped_iterations(l, &k, open, head, tail, &skipped, ctx)
        } else {
            self.align(l, &k, open, head, tail, ctx)
        };
        after.extend(left);
        after
    }

    /// Intervals of a synchronized loop every iteration of which passes a
    /// barrier (see the module comment); returns the instances open after it.
    fn align(
        &mut self,
        l: &crate::model::Loop,
        k: &Var,
        open: Vec<Instance>,
        head: Vec<Instance>,
        tail: Vec<Instance>,
        ctx: &Ctx,
    ) -> Vec<Instance> {
        let kv = Expr::Var(k.clone());
        let guard_at = |e: Expr| {
            let c = l.counter.clone();
            l.guard.subst(&mut |v: &Var| (*v == c).then(|| e.clone()))
        };
        // The code before the loop meets its first iteration's head.
        let mut first: Interval = open.clone();
        first.extend(head.iter().map(|i| i.rebind(k, &Expr::Const(0))));
        self.emit(first);
        // Iteration k's tail meets iteration k+1's head.
        let next = Expr::add(kv.clone(), Expr::Const(1));
        let mut wrap: Interval = tail.clone();
        wrap.extend(head.iter().map(|i| i.rebind(k, &next)));
        self.emit(wrap);
        // The last iteration's tail meets the code after the loop;
        // if the loop may not run at all, so does the code before.
        let last = Var::new(format!("{}'last", l.counter.name), VarKind::Shared);
        let lv = Expr::Var(last);
        let after_last = Expr::not(guard_at(Expr::add(lv.clone(), Expr::Const(1))));
        let after: Vec<Instance> = tail
            .iter()
            .map(|i| {
                let mut i = i.rebind(k, &lv);
                i.extra.push(after_last.clone());
                i
            })
            .collect();
        self.unless_it_runs(guard_at(Expr::Const(0)), ctx, open, after)
    }

    /// `after`, plus the instances `open` before a loop whose guard at the
    /// first iteration is `guard_at_zero` when the loop may not run at all:
    /// unless it provably runs at least once, the code before it may meet
    /// the code after it (under the zero-trip condition).
    fn unless_it_runs(
        &mut self,
        guard_at_zero: Expr,
        ctx: &Ctx,
        open: Vec<Instance>,
        mut after: Vec<Instance>,
    ) -> Vec<Instance> {
        let zero_trip = Expr::not(guard_at_zero);
        let mut facts = ctx.facts.clone();
        facts.push(ctx.apply(&zero_trip));
        if (self.may_hold)(&facts) {
            after.extend(open.into_iter().map(|mut i| {
                i.extra.push(zero_trip.clone());
                i
            }));
        }
        after
    }
}

/// The condition under which a thread's iteration of a loop passes no
/// barrier, over the loop's counter.
struct Skipped<'a> {
    counter: &'a Var,
    cond: &'a Expr,
}

impl Skipped<'_> {
    /// The executing thread's iteration `it` passed no barrier.
    fn at(&self, it: Expr) -> Expr {
        self.cond
            .subst(&mut |v: &Var| (v == self.counter).then(|| it.clone()))
    }

    /// The executing thread passed no barrier in iteration `v - 1`, unless
    /// `v` is `first` (the first iteration of the stretch).
    fn before(&self, v: &Var, first: Expr) -> Expr {
        let at = Expr::Var(v.clone());
        Expr::or(
            Expr::eq(at.clone(), first),
            self.at(Expr::add(at, Expr::Const(-1))),
        )
    }
}

impl Builder<'_> {
    /// Intervals of a synchronized loop of which an iteration may pass no
    /// barrier (`if (uniform) { ...; __syncthreads(); }` in the body, an
    /// inner loop that may not run). Between two barriers lie the tail of
    /// an iteration `k`, the whole of any later barrier-free iterations and
    /// the head of a later iteration: `tail[k]` with `tail[m]` and `head[n]`
    /// for `k < m < n`, where the iteration before `m` and before `n` (when
    /// later than `k`) passed no barrier for the thread that runs them (the
    /// barrier-free path's instances are in `tail`). The code before the
    /// loop meets the tails and the head of the iterations until its first
    /// barrier (the iterations before them passed none), and the code after
    /// it meets the tail of an iteration whose next one passes no barrier
    /// (or does not run). `m < n` holds because the two threads pass the
    /// same barriers (a barrier that some skip is `barrier-divergence`).
    #[allow(clippy::too_many_arguments)]
    fn align_with_skipped_iterations(
        &mut self,
        l: &crate::model::Loop,
        k: &Var,
        open: Vec<Instance>,
        head: Vec<Instance>,
        tail: Vec<Instance>,
        skipped: &Skipped,
        ctx: &Ctx,
    ) -> Vec<Instance> {
        let later = |name: &str, after: Option<&Var>| {
            let v = Var::new(format!("{}'{name}", l.counter.name), VarKind::Shared);
            let lower = match after {
                Some(a) => Expr::bin(
                    crate::model::BinOp::Gt,
                    Expr::Var(v.clone()),
                    Expr::Var(a.clone()),
                ),
                None => Expr::bin(
                    crate::model::BinOp::Ge,
                    Expr::Var(v.clone()),
                    Expr::Const(0),
                ),
            };
            (v, lower)
        };
        let bound = |set: &[Instance], v: &Var, lower: &Expr| -> Vec<Instance> {
            set.iter()
                .map(|i| {
                    let mut i = i.rebind(k, &Expr::Var(v.clone()));
                    i.extra.push(lower.clone());
                    i
                })
                .collect()
        };
        let (m, m_lower) = later("m", Some(k));
        let (n, n_lower) = later("n", Some(k));
        let (any_m, any_m_lower) = later("any_m", None);
        let (any_n, any_n_lower) = later("any_n", None);
        let lt = |a: &Var, b: &Var| {
            Expr::bin(
                crate::model::BinOp::Lt,
                Expr::Var(a.clone()),
                Expr::Var(b.clone()),
            )
        };
        let with = |mut set: Vec<Instance>, facts: &[Expr]| {
            for i in &mut set {
                i.extra.extend(facts.iter().cloned());
            }
            set
        };
        // The code before the loop meets every iteration until a barrier.
        let mut first: Interval = open.clone();
        first.extend(with(
            bound(&tail, &any_m, &any_m_lower),
            &[skipped.before(&any_m, Expr::Const(0)), lt(&any_m, &any_n)],
        ));
        first.extend(with(
            bound(&head, &any_n, &any_n_lower),
            &[skipped.before(&any_n, Expr::Const(0))],
        ));
        self.emit(first);
        // Iteration k's tail meets later barrier-free iterations and a later head.
        let k_lower = Expr::bin(
            crate::model::BinOp::Ge,
            Expr::Var(k.clone()),
            Expr::Const(0),
        );
        let next = Expr::add(Expr::Var(k.clone()), Expr::Const(1));
        let mut wrap: Interval = bound(&tail, k, &k_lower);
        wrap.extend(with(
            bound(&tail, &m, &m_lower),
            &[skipped.before(&m, next.clone()), lt(&m, &n)],
        ));
        wrap.extend(with(
            bound(&head, &n, &n_lower),
            &[skipped.before(&n, next)],
        ));
        self.emit(wrap);
        // The tail of an iteration whose next one passes no barrier (or
        // does not run) meets the code after the loop; so does the code
        // before it, unless the loop provably runs at least once.
        let after = with(
            bound(&tail, &any_m, &any_m_lower),
            &[skipped.at(Expr::add(Expr::Var(any_m.clone()), Expr::Const(1)))],
        );
        let guard_at_zero = {
            let c = l.counter.clone();
            l.guard
                .subst(&mut |v: &Var| (*v == c).then_some(Expr::Const(0)))
        };
        self.unless_it_runs(guard_at_zero, ctx, open, after)
    }
}

fn dedup(iv: &mut Interval) {
    let mut seen = std::collections::HashSet::new();
    iv.retain(|i| seen.insert(i.clone()));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The intervals that hold two instances a skipped barrier separated.
    fn separated(ivs: Vec<Interval>) -> Vec<Interval> {
        ivs.into_iter()
            .filter(|iv| {
                iv.iter()
                    .any(|i| i.tag != iv[0].tag || !i.skip_loops.is_empty())
            })
            .collect()
    }

    #[test]
    fn intervals_around_a_top_level_barrier_are_those_it_separates() {
        let mut checked = 0;
        for k in crate::verify::corpus_kernels() {
            for (pos, s) in k.body.iter().enumerate() {
                let Stmt::Barrier(b) = s else { continue };
                for level in [Level::Warp, Level::Block, Level::Grid] {
                    if !level.splits(b.kind) {
                        continue;
                    }
                    let whole = separated(intervals(&k, level, Some(b.id), &mut |_| true));
                    let around = separated(intervals_around(&k, level, b.id, pos, &mut |_| true));
                    assert_eq!(whole, around, "{} barrier {}", k.name, b.id);
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "{checked} barriers checked");
    }
}
