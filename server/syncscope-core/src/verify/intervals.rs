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

use crate::model::{BarrierKind, Expr, Kernel, Stmt, Var, VarKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// Threads of one warp: every barrier orders them.
    Warp,
    /// Threads of one block: block and grid barriers order them.
    Block,
    /// Threads of different blocks: only grid barriers order them.
    Grid,
}

impl Level {
    pub fn splits(self, kind: BarrierKind) -> bool {
        match self {
            Level::Warp => true,
            Level::Block => kind != BarrierKind::Warp,
            Level::Grid => kind == BarrierKind::Grid,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Instance {
    /// The access id (`usize::MAX` marks the start of a loop body while aligning).
    pub access: usize,
    /// Counter → value shared by both threads.
    pub subst: Vec<(Var, Expr)>,
    /// Extra constraints for the executing thread.
    pub extra: Vec<Expr>,
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
        }
    }
}

pub type Interval = Vec<Instance>;

/// The intervals of `kernel` at `level`, ignoring barrier `skip` (used to
/// ask what removing a barrier would do).
pub fn intervals(kernel: &Kernel, level: Level, skip: Option<usize>) -> Vec<Interval> {
    let mut b = Builder {
        level,
        skip,
        out: Vec::new(),
        ignore: 0,
    };
    let open = b.walk(&kernel.body, Vec::new(), &Ctx::default());
    b.emit(open);
    b.out.retain(|iv| iv.iter().any(|i| i.access != MARKER));
    b.out
}

#[derive(Clone, Default)]
struct Ctx {
    subst: Vec<(Var, Expr)>,
    extra: Vec<Expr>,
}

struct Builder {
    level: Level,
    skip: Option<usize>,
    out: Vec<Interval>,
    /// >0 while walking a loop that cannot be aligned: barriers do not split.
    ignore: usize,
}

impl Builder {
    fn splits(&self, stmts: &[Stmt]) -> bool {
        if self.ignore > 0 {
            return false;
        }
        let mut found = false;
        crate::model::walk(stmts, &mut |s| {
            if let Stmt::Barrier(b) = s {
                found |= self.level.splits(b.kind) && Some(b.id) != self.skip;
            }
        });
        found
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
                }),
                Stmt::Barrier(b) => {
                    if self.ignore == 0 && self.level.splits(b.kind) && Some(b.id) != self.skip {
                        let done = std::mem::take(&mut open);
                        self.emit(done);
                    }
                }
                Stmt::If(t, e) => {
                    if self.splits(t) || self.splits(e) {
                        let mut o1 = self.walk(t, open.clone(), ctx);
                        let o2 = self.walk(e, open, ctx);
                        o1.extend(o2);
                        dedup(&mut o1);
                        open = o1;
                    } else {
                        open = self.walk(t, open, ctx);
                        open = self.walk(e, open, ctx);
                    }
                }
                Stmt::Loop(l) => {
                    if !self.splits(&l.body) {
                        open = self.walk(&l.body, open, ctx);
                        continue;
                    }
                    let k = Var::new(format!("{}'", l.counter.name), VarKind::Shared);
                    let mut ctx_k = ctx.clone();
                    ctx_k.subst.push((l.counter.clone(), Expr::Var(k.clone())));
                    let mark = self.out.len();
                    let marker = Instance {
                        access: MARKER,
                        subst: Vec::new(),
                        extra: Vec::new(),
                    };
                    let tail = self.walk(&l.body, vec![marker], &ctx_k);
                    if tail.iter().any(|i| i.access == MARKER) {
                        // A path through the body passes no barrier: the
                        // loop cannot be aligned. Over-approximate: treat it
                        // as unsynchronized at this level.
                        self.out.truncate(mark);
                        self.ignore += 1;
                        open = self.walk(&l.body, open, ctx);
                        self.ignore -= 1;
                        continue;
                    }
                    let emitted: Vec<Interval> = self.out.drain(mark..).collect();
                    let mut head = Vec::new();
                    for iv in emitted {
                        if iv.iter().any(|i| i.access == MARKER) {
                            head.extend(iv.into_iter().filter(|i| i.access != MARKER));
                        } else {
                            self.out.push(iv);
                        }
                    }
                    let kv = Expr::Var(k.clone());
                    let guard_at = |e: Expr| {
                        let c = l.counter.clone();
                        l.guard.subst(&mut |v: &Var| (*v == c).then(|| e.clone()))
                    };
                    // The code before the loop meets its first iteration's head.
                    let mut first: Interval = open.clone();
                    first.extend(head.iter().map(|i| i.rebind(&k, &Expr::Const(0))));
                    self.emit(first);
                    // Iteration k's tail meets iteration k+1's head.
                    let next = Expr::add(kv.clone(), Expr::Const(1));
                    let mut wrap: Interval = tail.clone();
                    wrap.extend(head.iter().map(|i| i.rebind(&k, &next)));
                    self.emit(wrap);
                    // The last iteration's tail meets the code after the loop;
                    // if the loop may not run at all, so does the code before.
                    let last = Var::new(format!("{}'last", l.counter.name), VarKind::Shared);
                    let lv = Expr::Var(last);
                    let after_last = Expr::not(guard_at(Expr::add(lv.clone(), Expr::Const(1))));
                    let mut after: Vec<Instance> = tail
                        .iter()
                        .map(|i| {
                            let mut i = i.rebind(&k, &lv);
                            i.extra.push(after_last.clone());
                            i
                        })
                        .collect();
                    let zero_trip = Expr::not(guard_at(Expr::Const(0)));
                    after.extend(open.into_iter().map(|mut i| {
                        i.extra.push(zero_trip.clone());
                        i
                    }));
                    open = after;
                }
            }
        }
        open
    }
}

fn dedup(iv: &mut Interval) {
    let mut seen = std::collections::HashSet::new();
    iv.retain(|i| seen.insert(i.clone()));
}
