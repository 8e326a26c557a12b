//! Redundant barriers: a barrier is redundant when no race appears between
//! the instances it alone separated once it is gone. Must not report races.

use super::context::*;
use super::intervals::Instance;
use super::races::sel;
use crate::model::*;
use crate::report::*;

impl<'k> KernelContext<'k> {
    /// The barriers the kernel does not need, each a `redundant-barrier`
    /// finding. `so_far`: the kernel's findings before this check;
    /// `undecided`: the barriers whose divergence was not decided.
    pub(super) fn redundant_barriers(
        &mut self,
        so_far: &[Finding],
        undecided: &[usize],
    ) -> Vec<Finding> {
        let k = self.kernel;
        let mut findings = Vec::new();
        // A redundancy claim is a proof that the kernel without the barrier
        // verifies under the same launch and assumptions: only a kernel
        // that verifies itself (no race, divergence, assertion, not-verified
        // part or unknown answer) can give one, and every query of the
        // kernel without the barrier must come back unsat. Part of a kernel
        // outside the model (an unmodelled asynchronous copy) may be what
        // the barrier orders.
        let verified_so_far = so_far.iter().all(|f| {
            matches!(
                f.kind,
                FindingKind::RedundantBarrier | FindingKind::Note | FindingKind::Assumption
            )
        });
        if self.options.check_redundant
            && verified_so_far
            && k.unsupported.is_empty()
            && !self.cancelled()
        {
            for b in k.barriers() {
                if b.has_value || self.divergent.contains(&b.id) || undecided.contains(&b.id) {
                    continue;
                }
                if self.cancelled() {
                    break;
                }
                if self.is_redundant(b) && !self.cancelled() {
                    let what = barrier_name(b);
                    let f = Finding::new(
                        FindingKind::RedundantBarrier,
                        Some(&k.name),
                        b.span,
                        format!(
                            "redundant barrier: without this `{what}` the kernel still verifies (every race query unsat, same launch and assumptions)"
                        ),
                    );
                    findings.push(f);
                }
            }
        }
        findings
    }

    /// A barrier is redundant when no two instances it separates can race
    /// once it is gone (loop iterations included).
    pub(super) fn is_redundant(&mut self, b: &Barrier) -> bool {
        // The last-block ordering between blocks rests on these barriers,
        // which the intervals of a block-level query do not see.
        if self
            .modelled_last_blocks()
            .iter()
            .any(|lb| lb.barriers.contains(&b.id))
        {
            return false;
        }
        let without = self.find_races(Some(b.id));
        !without.needed
            && without.unknown.is_empty()
            && without.unconfirmed.is_empty()
            && without.pairs.is_empty()
    }

    /// The two chosen instances were separated by the skipped barrier.
    pub(super) fn separated(&self, insts: &[&Instance], rel: Relation) -> Expr {
        let tag = |t: u8| Expr::Var(Var::new(format!("tag{t}"), VarKind::Shared));
        let mut out = Vec::new();
        let mut loops: Vec<Var> = Vec::new();
        for inst in insts {
            for l in &inst.skip_loops {
                if !loops.contains(l) {
                    loops.push(l.clone());
                }
            }
        }
        for (i, inst) in insts.iter().enumerate() {
            for t in [1u8, 2] {
                let chosen = Expr::eq(sel(t), Expr::Const(i as i64));
                let mut facts = vec![Expr::eq(tag(t), Expr::Const(inst.tag))];
                for (li, l) in loops.iter().enumerate() {
                    let inl = Expr::Var(Var::new(format!("in{li}_{t}"), VarKind::Shared));
                    let cnt = Expr::Var(Var::new(format!("cnt{li}_{t}"), VarKind::Shared));
                    if inst.skip_loops.contains(l) {
                        facts.push(Expr::eq(inl, Expr::Const(1)));
                        let c = self.instantiate(&Expr::Var(l.clone()), t, rel, &inst.subst, false);
                        facts.push(Expr::eq(cnt, c));
                    } else {
                        facts.push(Expr::eq(inl, Expr::Const(0)));
                    }
                }
                out.push(Expr::or(Expr::not(chosen), Expr::all(facts)));
            }
        }
        let mut sep = Expr::bin(BinOp::Ne, tag(1), tag(2));
        for li in 0..loops.len() {
            let v = |n: &str| Expr::Var(Var::new(n.to_string(), VarKind::Shared));
            // Two trips of a loop that holds the barrier are separated by it.
            sep = Expr::or(
                sep,
                Expr::all([
                    Expr::eq(v(&format!("in{li}_1")), Expr::Const(1)),
                    Expr::eq(v(&format!("in{li}_2")), Expr::Const(1)),
                    Expr::bin(
                        BinOp::Ne,
                        v(&format!("cnt{li}_1")),
                        v(&format!("cnt{li}_2")),
                    ),
                ]),
            );
            // So are an instance inside that loop and one outside it: code
            // before the loop meets trip k > 0 only across the barrier of
            // trip 0, and trip k < last meets the code after the loop only
            // across the barrier of trip k + 1. (Trip 0 or the last trip may
            // meet it without crossing the barrier; such a pair also shares
            // an interval with the barrier kept, where it was already
            // checked, so counting it as separated only makes the claim
            // more cautious.)
            sep = Expr::or(
                sep,
                Expr::bin(BinOp::Ne, v(&format!("in{li}_1")), v(&format!("in{li}_2"))),
            );
        }
        out.push(sep);
        Expr::all(out)
    }
}
