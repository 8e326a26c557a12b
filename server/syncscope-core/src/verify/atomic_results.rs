//! What an atomic operation can return under the orders the barriers
//! allow (issue 15, GKLEE-atm, seed 000), for the claims of the code about
//! it (`assert(old < blockDim.x)` after `old = atomicAdd(&c, 1)`).
//!
//! Exact for the one case where every order is easy to count: a per-block
//! counter in shared memory, set to a constant by the kernel before a
//! barrier, and changed only by one unconditional `atomicAdd`/`atomicSub`
//! of a constant outside loops. Every thread of the block makes it once in
//! one barrier interval, so any order of the block's threads can happen:
//! the thread whose operation comes after j others gets `v0 + c * j`, for
//! every j below the number of threads of the block. Any other result is
//! left as the model has it (any value), so a claim that holds for it
//! holds, and one that fails is `unknown`, never a false `assertion`.

use super::context::*;
use crate::model::*;
use crate::symbols;

/// The results a claim mentions, as the verifier models them.
pub(super) struct ResultOrders {
    /// Each exactly modelled result, replaced by `v0 + c * j`.
    pub subst: Vec<(Var, Expr)>,
    /// `0 <= j < threads of the block` for each `j`.
    pub facts: Vec<Expr>,
    /// The position variables, with the operation each one orders.
    pub positions: Vec<(Var, usize)>,
    /// Whether every result the claim mentions is modelled exactly.
    pub exact: bool,
}

impl<'k> KernelContext<'k> {
    /// The atomic results `e` mentions and what each can be.
    pub(super) fn result_orders(&self, e: &Expr) -> ResultOrders {
        let k = self.kernel;
        let mut out = ResultOrders {
            subst: Vec::new(),
            facts: Vec::new(),
            positions: Vec::new(),
            exact: true,
        };
        for (i, op) in k.atomic_ops.iter().enumerate() {
            let Some(r) = &op.result else { continue };
            // The other thread's result (`__distinct_int(old)`): two
            // positions of one order, which this model does not relate.
            if e.mentions(&mut |v| v.name.strip_suffix(OTHER_THREAD) == Some(&*r.name)) {
                out.exact = false;
            }
            if !e.mentions(&mut |v| v == r) {
                continue;
            }
            match self.ticket_start_and_step(op) {
                Some((v0, c)) => {
                    let j = Var::new(
                        format!("order:{}", r.name),
                        VarKind::Unknown {
                            scope: Scope::Thread,
                            lo: 0,
                            hi: i64::MAX,
                        },
                    );
                    let block = (0..3u8)
                        .map(|d| {
                            Expr::Var(Var::new(
                                format!("blockDim.{}", DIMS[d as usize]),
                                VarKind::BlockDim(d),
                            ))
                        })
                        .reduce(Expr::mul)
                        .unwrap_or(Expr::Const(1));
                    out.facts
                        .push(Expr::bin(BinOp::Ge, Expr::Var(j.clone()), Expr::Const(0)));
                    out.facts
                        .push(Expr::bin(BinOp::Lt, Expr::Var(j.clone()), block));
                    let value = Expr::add(
                        Expr::Const(v0),
                        Expr::mul(Expr::Const(c), Expr::Var(j.clone())),
                    );
                    out.subst.push((r.clone(), value));
                    out.positions.push((j, i));
                }
                None => out.exact = false,
            }
        }
        out
    }

    /// For the exactly modelled counter of the module comment: its start
    /// value and the step of its one operation.
    fn ticket_start_and_step(&self, op: &AtomicOp) -> Option<(i64, i64)> {
        let k = self.kernel;
        let acc = self.accesses.get(&op.access)?;
        let counter = symbols::ticket_counter(&op.result.as_ref()?.name)?;
        if !k.ticket_counters.iter().any(|c| c == counter)
            || k.arrays[acc.array].space != MemorySpace::Shared
            || !acc.guard.is_true()
            || !acc.loops.is_empty()
            || acc.index.as_const().is_none()
        {
            return None;
        }
        let c = match (op.op.as_str(), op.operands.first()?.as_ref()?.as_const()?) {
            ("atomicAdd", c) => c,
            ("atomicSub", c) => c.checked_neg()?,
            _ => return None,
        };
        let sites = k
            .atomic_ops
            .iter()
            .filter(|o| self.accesses.get(&o.access).map(|a| a.array) == Some(acc.array))
            .count();
        // The one plain write that sets the counter up (the ticket
        // counters' rule puts a barrier between it and the operation).
        let writes: Vec<&Access> = k
            .accesses()
            .into_iter()
            .filter(|a| a.array == acc.array && a.kind == AccessKind::Write)
            .collect();
        match (sites, writes.as_slice()) {
            (1, [w]) if w.index == acc.index && w.id < acc.id => {
                Some((w.value.as_ref()?.as_const()?, c))
            }
            _ => None,
        }
    }
}
