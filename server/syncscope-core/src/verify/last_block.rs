//! The last-block pattern in race queries (issue 19 item 3): every block
//! writes its part, `__threadfence()`, and one thread of it increments a
//! counter once (`t = atomicInc(&done, N)` or `atomicAdd(&done, 1)`); the
//! block whose ticket is the number of blocks minus one reads everything.
//!
//! The model (`Kernel::last_blocks`): the ticket is one value per block.
//! When one thread per block increments, outside loops, and the counter has
//! no other atomic update, then between two different blocks
//! (a) the tickets differ (for `atomicInc`, only while N + 1 covers every
//!     block: it wraps at N), so one block at most passes an equality test;
//! (b) a block with ticket `blocks - 1` is last: every other block
//!     incremented before it, so what another block did before its
//!     increment (its own thread's accesses, or any thread's before a block
//!     barrier ahead of the fence) happens before what the last block does
//!     after its increment (the incrementing thread, or any thread after a
//!     block barrier behind it). Anything after a non-last block's
//!     increment stays unordered.
//!
//! (b) takes the counter to be 0 when the kernel starts (its declaration
//! or the host sets it; the last block usually resets it): the report
//! says so in a note.

use super::context::{KernelContext, Relation};
use super::intervals::Instance;
use super::races::sel;
use crate::model::*;
use crate::report::{Finding, FindingKind};

impl KernelContext<'_> {
    /// The last-block patterns the model decides (see the module).
    pub(super) fn modelled_last_blocks(&self) -> Vec<&LastBlock> {
        self.kernel
            .last_blocks
            .iter()
            .filter(|lb| self.one_thread_per_block(&lb.atomic_guard) && self.only_update(lb))
            .collect()
    }

    /// What the report says about each last-block pattern: the assumption
    /// the ordering rests on, or why it is not modelled.
    pub(super) fn last_block_notes(&self) -> Vec<Finding> {
        let modelled = self.modelled_last_blocks();
        self.kernel
            .last_blocks
            .iter()
            .map(|lb| {
                if modelled.contains(&lb) {
                    Finding::new(
                        FindingKind::Note,
                        Some(&self.kernel.name),
                        lb.span,
                        format!(
                            "note: last-block pattern on `{}`: checked assuming it holds 0 when the kernel starts (one increment per block; the block whose ticket is the number of blocks minus one runs after every other block's increment)",
                            lb.counter
                        ),
                    )
                } else {
                    Finding::new(
                        FindingKind::NotVerified,
                        Some(&self.kernel.name),
                        lb.span,
                        format!(
                            "not verified: last-block pattern on `{}`: more than one thread of a block may increment it, or it has other atomic updates (the model needs one increment per block)",
                            lb.counter
                        ),
                    )
                }
            })
            .collect()
    }

    /// `guard` holds for one thread of a block at most: it requires
    /// `threadIdx.d == 0` in every dimension the launch (or an assumption
    /// of the kernel, such as a fact of its launch site) does not fix to 1.
    fn one_thread_per_block(&self, guard: &Expr) -> bool {
        (0..3u8).all(|d| {
            self.env.fixed(VarKind::BlockDim(d)) == Some(1)
                || self
                    .kernel
                    .assumptions
                    .iter()
                    .any(|a| a.pins_block_dim_to_one(d))
                || guard.requires_thread_zero(d)
        })
    }

    /// The fenced increment is the counter's only atomic update.
    fn only_update(&self, lb: &LastBlock) -> bool {
        let Some(array) = self.accesses.get(&lb.atomic).map(|a| a.array) else {
            return false;
        };
        self.accesses
            .values()
            .filter(|a| a.array == array && a.kind == AccessKind::Atomic)
            .all(|a| a.id == lb.atomic)
    }

    /// Constraints (a) and (b) of the module for a race query between two
    /// threads that may be in different blocks.
    pub(super) fn last_block_constraints(&self, insts: &[&Instance], rel: Relation) -> Vec<Expr> {
        if !rel.cross_block() {
            return Vec::new();
        }
        let mut out = Vec::new();
        let inst = |e: &Expr, t: u8| self.instantiate(e, t, rel, &[], false);
        let grid = |d: u8| {
            Expr::Var(Var::new(
                format!("gridDim.{}", DIMS[d as usize]),
                VarKind::GridDim(d),
            ))
        };
        let blocks = Expr::bin(BinOp::Mul, Expr::bin(BinOp::Mul, grid(0), grid(1)), grid(2));
        let last_ticket = Expr::bin(BinOp::Sub, blocks.clone(), Expr::Const(1));
        let differ = (0..3u8).fold(Expr::fals(), |acc, d| {
            let b = Expr::Var(Var::new(
                format!("blockIdx.{}", DIMS[d as usize]),
                VarKind::BlockIdx(d),
            ));
            Expr::or(acc, Expr::bin(BinOp::Ne, inst(&b, 1), inst(&b, 2)))
        });
        for lb in self.modelled_last_blocks() {
            let ticket = [
                inst(&Expr::Var(lb.ticket.clone()), 1),
                inst(&Expr::Var(lb.ticket.clone()), 2),
            ];
            let no_wrap = match &lb.wrap {
                None => Expr::tru(),
                Some(n) => Expr::and(
                    Expr::bin(BinOp::Ge, inst(n, 1), last_ticket.clone()),
                    Expr::bin(BinOp::Ge, inst(n, 2), last_ticket.clone()),
                ),
            };
            let premise = Expr::and(differ.clone(), no_wrap);
            // Tickets count from 0 (the assumption) and stay below the
            // wrap bound of `atomicInc`.
            for t in &ticket {
                out.push(Expr::bin(BinOp::Ge, t.clone(), Expr::Const(0)));
            }
            if let Some(n) = &lb.wrap {
                for (k, t) in ticket.iter().enumerate() {
                    out.push(Expr::bin(BinOp::Le, t.clone(), inst(n, k as u8 + 1)));
                }
            }
            // (a) different blocks, different tickets.
            out.push(Expr::or(
                Expr::not(premise.clone()),
                Expr::bin(BinOp::Ne, ticket[0].clone(), ticket[1].clone()),
            ));
            // (b) before the increment in one block, after it in the last.
            for (i, before) in insts.iter().enumerate() {
                let Some(pre) = self.ordered_before(lb, before.access) else {
                    continue;
                };
                for (j, after) in insts.iter().enumerate() {
                    let Some(post) = self.ordered_after(lb, after.access) else {
                        continue;
                    };
                    for (t, u) in [(1u8, 2u8), (2, 1)] {
                        out.push(Expr::not(Expr::all([
                            premise.clone(),
                            Expr::eq(sel(t), Expr::Const(i as i64)),
                            Expr::eq(sel(u), Expr::Const(j as i64)),
                            inst(&pre, t),
                            inst(&post, u),
                            Expr::eq(ticket[(u - 1) as usize].clone(), last_ticket.clone()),
                        ])));
                    }
                }
            }
        }
        out
    }

    /// When access `id` happens before its block's increment, made visible
    /// by the fence: always (it precedes a barrier every thread passes
    /// before the fence), when the thread increments (it comes before the
    /// fence in program order; or it is the increment), or never.
    fn ordered_before(&self, lb: &LastBlock, id: usize) -> Option<Expr> {
        if id < lb.barrier_before {
            Some(Expr::tru())
        } else if id < lb.fence || id == lb.atomic {
            Some(lb.atomic_guard.clone())
        } else {
            None
        }
    }

    /// When access `id` happens after its block's increment.
    fn ordered_after(&self, lb: &LastBlock, id: usize) -> Option<Expr> {
        if id <= lb.atomic {
            None
        } else if lb.barrier_after.is_some_and(|b| id >= b) {
            Some(Expr::tru())
        } else {
            Some(lb.atomic_guard.clone())
        }
    }
}
