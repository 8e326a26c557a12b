//! A thread's own `__shared__` slots: what a read returns when the reading
//! thread itself wrote the cell, for the same-value check of two writes
//! (`congruence`). Must not decide races.
//!
//! A block often keeps per-thread scratch in shared memory (`s[k * NT +
//! threadIdx.x]`): each thread writes its slots, the block synchronises,
//! and each thread reads back one of its own slots, chosen by a value the
//! model does not know (a texel, a table entry). The read's value is then
//! the value the thread wrote there, which is a function of that thread's
//! inputs, so two threads of equal inputs read equal values although the
//! model names the two reads by two unknowns.
//!
//! The fact is stated per thread: "if my read's cell is the cell of my
//! write `W` (and no later write of mine hits it), my read returns `W`'s
//! value". It holds when
//! - the array's element is a scalar (`Kernel::scalar_arrays`: a write of
//!   a cell writes all of it, not one member), the array is no view of
//!   other bytes, and every access of it touches one cell;
//! - every write of the array (atomics included) lies outside loops, before
//!   the read in program order, with no barrier between the first and the
//!   last of them: another thread's write of the cell is then concurrent
//!   with this thread's own write of it, a write-write race the race check
//!   of the same array reports unless both write one value (a benign race
//!   leaves that value), and a write concurrent with the read is a race
//!   reported the same way. So on a kernel this run verifies, no other
//!   thread's write comes between the thread's own last write of the cell
//!   and its read.

use super::context::*;
use super::intervals::Instance;
use crate::model::*;
use std::collections::{HashMap, HashSet};

/// The reads of `__shared__` cells a thread may have written itself: the
/// read's access and the array's writes in program order.
pub(super) type OwnSlotReads<'k> = Vec<(&'k Var, &'k Access, Vec<&'k Access>)>;

/// One event of the kernel's body in program order.
enum Event<'k> {
    Access(&'k Access),
    Barrier,
}

fn flatten<'k>(stmts: &'k [Stmt], out: &mut Vec<Event<'k>>) {
    for s in stmts {
        match s {
            Stmt::Access(a) => out.push(Event::Access(a)),
            Stmt::Barrier(_) => out.push(Event::Barrier),
            Stmt::If(t, e) => {
                flatten(t, out);
                flatten(e, out);
            }
            Stmt::Loop(l) => flatten(&l.body, out),
            Stmt::LoopExit(_) => {}
        }
    }
}

/// The reads of the kernel that may read a slot the reading thread wrote
/// (see the module's comment for when).
pub(super) fn own_slot_reads(kernel: &Kernel) -> OwnSlotReads<'_> {
    let mut events = Vec::new();
    flatten(&kernel.body, &mut events);
    // Per array: its writes in program order, and where the last is.
    let mut writes: HashMap<ArrayId, (Vec<&Access>, usize)> = HashMap::new();
    // Arrays whose accesses break a condition.
    let mut refused: HashSet<ArrayId> = HashSet::new();
    let mut barrier_since_write: HashMap<ArrayId, bool> = HashMap::new();
    for (pos, e) in events.iter().enumerate() {
        match e {
            Event::Barrier => {
                for seen in barrier_since_write.values_mut() {
                    *seen = true;
                }
            }
            Event::Access(a) => {
                let array = &kernel.arrays[a.array];
                if array.space != MemorySpace::Shared
                    || array.byte_addressed
                    || a.width != 1
                    || !kernel.scalar_arrays.contains(&a.array)
                {
                    refused.insert(a.array);
                    continue;
                }
                if !a.kind.writes() {
                    continue;
                }
                if !a.loops.is_empty() || barrier_since_write.get(&a.array) == Some(&true) {
                    refused.insert(a.array);
                }
                barrier_since_write.insert(a.array, false);
                let entry = writes.entry(a.array).or_default();
                entry.0.push(a);
                entry.1 = pos;
            }
        }
    }
    let mut out = Vec::new();
    for (value, id) in &kernel.read_values {
        let Some((pos, read)) = events.iter().enumerate().find_map(|(p, e)| match e {
            Event::Access(a) if a.id == *id && a.kind == AccessKind::Read => Some((p, *a)),
            _ => None,
        }) else {
            continue;
        };
        if refused.contains(&read.array)
            || !super::input_orders::one_cell(value, read, &kernel.arrays[read.array])
        {
            continue;
        }
        let Some((ws, last)) = writes.get(&read.array) else {
            continue;
        };
        if *last < pos {
            out.push((value, read, ws.clone()));
        }
    }
    out
}

impl KernelContext<'_> {
    /// For one thread (`t`) of the query, instantiated under the subst of
    /// `insts[i]` (the instance of the write whose value mentions the
    /// read): the read `value` of `read` returns the value of the thread's
    /// last write among `writes` whose cell is the read's, when the read
    /// runs.
    pub(super) fn own_slot_facts(
        &self,
        (value, read, writes): (&Var, &Access, &[&Access]),
        t: u8,
        insts: &[&Instance],
        i: usize,
        rel: Relation,
    ) -> Vec<Expr> {
        let at = |e: &Expr| self.instantiate(e, t, rel, &insts[i].subst, false);
        let read_value = at(&Expr::Var(value.clone()));
        let cell = at(&read.index);
        let runs = at(&read.guard);
        // Thread t's write `w` runs and writes the read's cell.
        let hits = |w: &Access| Expr::and(at(&w.guard), Expr::eq(at(&w.index), cell.clone()));
        let mut out = Vec::new();
        for (j, w) in writes.iter().enumerate() {
            let Some(written) = w.value.as_ref().filter(|_| w.kind == AccessKind::Write) else {
                continue;
            };
            let last = Expr::all(writes[j + 1..].iter().map(|l| Expr::not(hits(l))));
            let premise = Expr::all([runs.clone(), hits(w), last]);
            out.push(Expr::or(
                Expr::not(premise),
                Expr::eq(read_value.clone(), at(written)),
            ));
        }
        out
    }
}
