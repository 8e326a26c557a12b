//! A concrete interpreter of the kernel model (a memory-access model in the
//! spirit of Simulee, seed 004): runs one thread with concrete launch sizes,
//! indices, parameters and unknown values, and records every access it makes
//! with the number of barriers of each level it had passed. Witnesses from
//! the solver are replayed on it before a finding is reported.

use crate::model::{BarrierKind, BinOp, Expr, Kernel, Stmt, UnOp, Var, VarKind};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The sizes of a concrete launch, and the built-in values each of its
/// threads sees: the one reading of threadIdx, blockIdx, blockDim and
/// gridDim from a thread's coordinates, for every concrete run (collision
/// sweeps, the schedule search, `equiv`'s interpreter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct LaunchShape {
    pub block: [i64; 3],
    pub grid: [i64; 3],
}

impl LaunchShape {
    /// Threads in a block.
    pub(crate) fn per_block(&self) -> i64 {
        self.block.iter().product()
    }

    /// Threads in the launch.
    pub(crate) fn threads(&self) -> i64 {
        self.per_block() * self.grid.iter().product::<i64>()
    }

    /// (threadIdx, blockIdx) of thread number `n` of the launch (x
    /// fastest, block after block).
    pub(crate) fn coords(&self, n: i64) -> ([i64; 3], [i64; 3]) {
        let (b, t) = (n / self.per_block(), n % self.per_block());
        let split = |mut v: i64, dims: [i64; 3]| {
            let mut out = [0; 3];
            for d in 0..3 {
                out[d] = v % dims[d];
                v /= dims[d];
            }
            out
        };
        (split(t, self.block), split(b, self.grid))
    }

    /// The value of a built-in variable for the thread `tid` of block
    /// `bid`; `None` for any other kind of variable.
    pub(crate) fn builtin(&self, kind: VarKind, tid: [i64; 3], bid: [i64; 3]) -> Option<i64> {
        match kind {
            VarKind::ThreadIdx(d) => Some(tid[d as usize]),
            VarKind::BlockIdx(d) => Some(bid[d as usize]),
            VarKind::BlockDim(d) => Some(self.block[d as usize]),
            VarKind::GridDim(d) => Some(self.grid[d as usize]),
            _ => None,
        }
    }
}

/// The coordinates of a box of `size`, x fastest.
pub(crate) fn linear(size: [i64; 3]) -> impl Iterator<Item = [i64; 3]> {
    (0..size[2])
        .flat_map(move |z| (0..size[1]).flat_map(move |y| (0..size[0]).map(move |x| [x, y, z])))
}

/// One access made by a thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Event {
    pub access: usize,
    pub index: i64,
    /// Cells from `index` the access covers (see `Access::width`).
    pub width: i64,
    /// Barriers passed before it: [any level (warp), block or grid, grid].
    pub epochs: [u32; 3],
}

#[derive(Debug, Default)]
pub(crate) struct Trace {
    pub events: Vec<Event>,
    pub barrier_counts: HashMap<usize, u32>,
    /// False when the step budget ran out or arithmetic overflowed.
    pub complete: bool,
}

pub(crate) struct Interpreter<'a> {
    pub lookup: &'a dyn Fn(&Var) -> Option<i64>,
    pub bitvector: bool,
    /// Only record these accesses (all when empty).
    pub only: &'a [usize],
    pub max_steps: usize,
    /// Barriers to ignore: a removed one ("what if"), or divergent ones,
    /// which do not order the threads that skip them.
    pub skip: &'a [usize],
}

struct State {
    counters: HashMap<Arc<str>, i64>,
    epochs: [u32; 3],
    steps: usize,
    /// Count each barrier's passes (`Trace::barrier_counts`).
    count_barriers: bool,
    trace: Trace,
    /// A `break` was taken in the current iteration of the innermost loop.
    broke: bool,
}

/// The kernel's top level as a run that records a few accesses needs it:
/// the top-level statement that holds each access; the top-level barriers
/// every thread passes (guard `true`), as the epochs they add up to before
/// each position; and the other statements that are not plain accesses
/// (conditionals, loops, guarded barriers), which a run must execute.
/// Built once per kernel, so that replaying one pair of a kernel of tens of
/// thousands of statements does not walk them all.
pub(crate) struct Outline {
    holder: HashMap<usize, usize>,
    /// `plain[i]`: the epochs the unconditional top-level barriers before
    /// position `i` add.
    plain: Vec<[u32; 3]>,
    plain_ids: HashSet<usize>,
    complex: Vec<usize>,
}

impl Outline {
    pub(crate) fn new(kernel: &Kernel) -> Outline {
        let mut holder = HashMap::new();
        let mut plain = vec![[0; 3]];
        let mut plain_ids = HashSet::new();
        let mut complex = Vec::new();
        for (i, s) in kernel.body.iter().enumerate() {
            let mut epochs = plain[i];
            match s {
                Stmt::Access(_) => {}
                Stmt::Barrier(b) if b.guard.is_true() => {
                    plain_ids.insert(b.id);
                    add_epochs(&mut epochs, b.kind);
                }
                _ => complex.push(i),
            }
            plain.push(epochs);
            crate::model::walk(std::slice::from_ref(s), &mut |x| {
                if let Stmt::Access(a) = x {
                    holder.insert(a.id, i);
                }
            });
        }
        Outline {
            holder,
            plain,
            plain_ids,
            complex,
        }
    }
}

/// One pass of a barrier of `kind`: the epochs it moves.
fn add_epochs(epochs: &mut [u32; 3], kind: BarrierKind) {
    epochs[0] += 1;
    if kind != BarrierKind::Warp {
        epochs[1] += 1;
    }
    if kind == BarrierKind::Grid {
        epochs[2] += 1;
    }
}

impl Interpreter<'_> {
    /// [`Self::run`] for a run that records only `self.only`: visits the
    /// top-level statements that hold those accesses or may move the
    /// epochs, and stops after the last access it records (the events it
    /// records are the full run's; barrier passes are not counted).
    pub(crate) fn run_outlined(&self, kernel: &Kernel, outline: &Outline) -> Trace {
        let holders: Option<Vec<usize>> = self
            .only
            .iter()
            .map(|a| outline.holder.get(a).copied())
            .collect();
        let skips_plain = self.skip.iter().any(|b| outline.plain_ids.contains(b));
        let (Some(mut holders), false, false) = (holders, self.only.is_empty(), skips_plain) else {
            return self.run(kernel);
        };
        holders.sort_unstable();
        holders.dedup();
        let last = holders.last().copied().unwrap_or(0);
        let mut st = State {
            counters: HashMap::new(),
            epochs: [0; 3],
            steps: 0,
            count_barriers: false,
            trace: Trace {
                complete: true,
                ..Default::default()
            },
            broke: false,
        };
        // The two sorted lists merged: each statement once, in order. The
        // epochs at a statement are those the executed statements moved
        // plus those of the unconditional barriers before it.
        let mut moved = [0u32; 3];
        let mut complex = outline.complex.iter().copied().peekable();
        let mut holders = holders.into_iter().peekable();
        loop {
            let next = match (complex.peek(), holders.peek()) {
                (Some(&a), Some(&b)) => a.min(b),
                (Some(&a), None) => a,
                (None, Some(&b)) => b,
                (None, None) => break,
            };
            if next > last {
                break;
            }
            complex.next_if_eq(&next);
            holders.next_if_eq(&next);
            let before = outline.plain[next];
            for l in 0..3 {
                st.epochs[l] = moved[l] + before[l];
            }
            self.stmts(&kernel.body[next..=next], &mut st);
            for l in 0..3 {
                moved[l] = st.epochs[l] - before[l];
            }
        }
        st.trace
    }

    pub(crate) fn run(&self, kernel: &Kernel) -> Trace {
        let mut st = State {
            counters: HashMap::new(),
            epochs: [0; 3],
            steps: 0,
            count_barriers: true,
            trace: Trace {
                complete: true,
                ..Default::default()
            },
            broke: false,
        };
        self.stmts(&kernel.body, &mut st);
        st.trace
    }

    fn stmts(&self, stmts: &[Stmt], st: &mut State) {
        for s in stmts {
            if !st.trace.complete {
                return;
            }
            st.steps += 1;
            if st.steps > self.max_steps {
                st.trace.complete = false;
                return;
            }
            match s {
                Stmt::Access(a) => {
                    if !self.only.is_empty() && !self.only.contains(&a.id) {
                        continue;
                    }
                    match (self.eval(&a.guard, st), self.eval(&a.index, st)) {
                        (Some(g), Some(i)) => {
                            if g != 0 {
                                st.trace.events.push(Event {
                                    access: a.id,
                                    index: i,
                                    width: a.width,
                                    epochs: st.epochs,
                                });
                            }
                        }
                        (Some(0), None) => {}
                        _ => st.trace.complete = false,
                    }
                }
                Stmt::Barrier(b) if self.skip.contains(&b.id) => {}
                Stmt::Barrier(b) => match self.eval(&b.guard, st) {
                    Some(0) => {}
                    Some(_) => {
                        add_epochs(&mut st.epochs, b.kind);
                        if st.count_barriers {
                            *st.trace.barrier_counts.entry(b.id).or_insert(0) += 1;
                        }
                    }
                    None => st.trace.complete = false,
                },
                Stmt::If(t, e) => {
                    self.stmts(t, st);
                    self.stmts(e, st);
                }
                // The guards after a `break` leave the rest of the iteration;
                // the loop stops at its end.
                Stmt::LoopExit(g) => match self.eval(g, st) {
                    Some(0) => {}
                    Some(_) => st.broke = true,
                    None => st.trace.complete = false,
                },
                Stmt::Loop(l) => {
                    let name = l.counter.name.clone();
                    let pow2 = matches!(l.counter.kind, VarKind::Counter { pow2: true });
                    let mut k = 0i64;
                    loop {
                        if pow2 && k >= 64 {
                            break;
                        }
                        // Every iteration is a step: a loop with an empty
                        // body (`while (1) {}`) must not spin forever.
                        st.steps += 1;
                        if st.steps > self.max_steps {
                            st.trace.complete = false;
                            break;
                        }
                        st.counters.insert(name.clone(), k);
                        let cond_len = l.cond_len.min(l.body.len());
                        self.stmts(&l.body[..cond_len], st);
                        match self.eval(&l.guard, st) {
                            Some(0) => break,
                            Some(_) => {}
                            None => {
                                st.trace.complete = false;
                                break;
                            }
                        }
                        self.stmts(&l.body[cond_len..], st);
                        if !st.trace.complete || std::mem::take(&mut st.broke) {
                            break;
                        }
                        k += 1;
                    }
                    st.counters.remove(&name);
                }
            }
        }
    }

    fn var(&self, v: &Var, st: &State) -> Option<i64> {
        if let VarKind::Counter { .. } = v.kind {
            if let Some(k) = st.counters.get(&v.name) {
                return Some(*k);
            }
        }
        (self.lookup)(v)
    }

    fn eval_with(&self, e: &Expr) -> Option<i64> {
        let st = State {
            counters: HashMap::new(),
            epochs: [0; 3],
            steps: 0,
            count_barriers: false,
            trace: Trace::default(),
            broke: false,
        };
        self.eval(e, &st)
    }

    fn eval(&self, e: &Expr, st: &State) -> Option<i64> {
        let v = match e {
            Expr::Const(c) => *c,
            Expr::Var(v) => self.var(v, st)?,
            Expr::Un(op, a) => {
                let x = self.eval(a, st)?;
                match op {
                    UnOp::Neg => x.checked_neg()?,
                    UnOp::Not => (x == 0) as i64,
                    UnOp::BitNot => !x,
                }
            }
            Expr::Pow2(a) => {
                let x = self.eval(a, st)?;
                if !(0..63).contains(&x) {
                    return None;
                }
                1i64 << x
            }
            Expr::Ite(c, a, b) => {
                if self.eval(c, st)? != 0 {
                    self.eval(a, st)?
                } else {
                    self.eval(b, st)?
                }
            }
            Expr::Bin(BinOp::And, a, b) => {
                (self.eval(a, st)? != 0 && self.eval(b, st)? != 0) as i64
            }
            Expr::Bin(BinOp::Or, a, b) => (self.eval(a, st)? != 0 || self.eval(b, st)? != 0) as i64,
            Expr::Bin(op, a, b) => {
                let x = self.eval(a, st)?;
                let y = self.eval(b, st)?;
                apply(*op, x, y, self.bitvector)?
            }
        };
        Some(if self.bitvector { v as i32 as i64 } else { v })
    }
}

/// The value of one expression, each variable's value from `lookup`
/// (`None` when one is unknown or an operation is undefined), with the
/// interpreter's C semantics.
pub(crate) fn eval_expr(
    e: &Expr,
    lookup: &dyn Fn(&Var) -> Option<i64>,
    bitvector: bool,
) -> Option<i64> {
    Interpreter {
        lookup,
        bitvector,
        only: &[],
        max_steps: 1,
        skip: &[],
    }
    .eval_with(e)
}

/// C semantics of one operation (`None`: undefined or overflow).
pub(crate) fn apply(op: BinOp, x: i64, y: i64, bitvector: bool) -> Option<i64> {
    if bitvector {
        let (a, b) = (x as i32, y as i32);
        return Some(match op {
            BinOp::Add => a.wrapping_add(b) as i64,
            BinOp::Sub => a.wrapping_sub(b) as i64,
            BinOp::Mul => a.wrapping_mul(b) as i64,
            BinOp::Div => a.checked_div(b)? as i64,
            BinOp::Rem => a.checked_rem(b)? as i64,
            BinOp::Shl => a.wrapping_shl(b as u32) as i64,
            BinOp::Shr => a.wrapping_shr(b as u32) as i64,
            BinOp::BitAnd => (a & b) as i64,
            BinOp::BitOr => (a | b) as i64,
            BinOp::BitXor => (a ^ b) as i64,
            _ => crate::model::fold(op, a as i64, b as i64)?,
        });
    }
    match op {
        BinOp::Shr => Some(if y >= 63 {
            if x < 0 {
                -1
            } else {
                0
            }
        } else if y < 0 {
            return None;
        } else {
            x >> y
        }),
        // Bitwise operations on 32-bit values, as the SMT encoding does.
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
            let (a, b) = (x as i32, y as i32);
            Some(match op {
                BinOp::BitAnd => (a & b) as i64,
                BinOp::BitOr => (a | b) as i64,
                _ => (a ^ b) as i64,
            })
        }
        _ => crate::model::fold(op, x, y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outlined_run_records_the_events_of_a_full_run() {
        let mut checked = 0;
        for k in crate::verify::corpus_kernels() {
            let outline = Outline::new(&k);
            let ids: Vec<usize> = k.accesses().iter().map(|a| a.id).collect();
            // Thread 3 of block 1, every other value 2: concrete enough to
            // take branches and run loops.
            let lookup = |v: &Var| {
                Some(match v.kind {
                    VarKind::ThreadIdx(0) => 3,
                    VarKind::BlockIdx(0) => 1,
                    VarKind::BlockDim(0) => 64,
                    VarKind::GridDim(0) => 4,
                    _ => 2,
                })
            };
            for (n, &p) in ids.iter().enumerate().take(12) {
                for &q in ids.iter().skip(n).take(12) {
                    let only = [p, q];
                    let run = Interpreter {
                        lookup: &lookup,
                        bitvector: false,
                        only: &only,
                        max_steps: 200_000,
                        skip: &[],
                    };
                    let full = run.run(&k);
                    if !full.complete {
                        continue;
                    }
                    let outlined = run.run_outlined(&k, &outline);
                    assert!(outlined.complete, "{}", k.name);
                    assert_eq!(full.events, outlined.events, "{} {p} {q}", k.name);
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked} pairs checked");
    }
}
