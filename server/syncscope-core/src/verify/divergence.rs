//! Barrier divergence: a barrier whose guard may hold for one thread of a
//! block and not for another (`g(t1) ∧ ¬g(t2)`), with a replayed witness.
//! Must not look at accesses.

use super::context::*;
use super::replay::Interpreter;
use super::smt;
use super::witness::exclude_model;
use crate::cache::QueryOutcome;
use crate::model::*;
use crate::report::*;
use std::collections::HashMap;

/// The divergence check's verdict on the kernel's barriers.
pub(super) struct BarrierVerdicts {
    /// A finding for each barrier found divergent or left undecided, in
    /// the kernel's order.
    pub findings: Vec<Finding>,
    /// The barriers whose divergence could not be decided: no redundancy
    /// claim is made for them.
    pub unknown: Vec<usize>,
}

impl<'k> KernelContext<'k> {
    /// Every barrier of the kernel checked for divergence, in order. The
    /// divergent ones are kept in `divergent` (replay ignores them).
    pub(super) fn check_barriers(&mut self) -> BarrierVerdicts {
        let k = self.kernel;
        let mut findings = Vec::new();
        let mut divergent = Vec::new();
        let mut unknown_barriers = Vec::new();
        // The barriers' guards share their enclosing conditions: whether a
        // shared one is thread-specific is found once (see `divergence`).
        let mut thread_specific = HashMap::new();
        for b in k.barriers() {
            if self.cancelled() {
                break;
            }
            match self.divergence(b, &mut thread_specific) {
                Divergence::Uniform => {}
                Divergence::Divergent(f) => {
                    divergent.push(b.id);
                    let origins = b.guard.unseen_origins();
                    if origins.is_empty() {
                        findings.push(*f);
                    } else {
                        let names: Vec<String> = origins.iter().map(|o| format!("`{o}`")).collect();
                        findings.push(Finding::new(
                            FindingKind::NotVerified,
                            Some(&k.name),
                            b.span,
                            format!(
                                "not verified: possible barrier divergence, depends on {} (not visible to the analysis: a function without a body or an undeclared name)",
                                names.join(", ")
                            ),
                        ));
                    }
                }
                Divergence::Unknown(reason) => {
                    unknown_barriers.push(b.id);
                    findings.push(Finding::new(
                        FindingKind::Unknown,
                        Some(&k.name),
                        b.span,
                        format!("unknown: could not decide whether every thread reaches this barrier ({reason})"),
                    ));
                }
            }
        }
        self.divergent = divergent;
        BarrierVerdicts {
            findings,
            unknown: unknown_barriers,
        }
    }

    /// `thread_specific`: the answers of `thread_specific` for this
    /// kernel's guards, kept across its barriers.
    pub(super) fn divergence(
        &mut self,
        b: &Barrier,
        thread_specific: &mut HashMap<(usize, Relation), bool>,
    ) -> Divergence {
        if b.partial_mask {
            return Divergence::Uniform;
        }
        let rel = match b.kind {
            BarrierKind::Warp => Relation::SameWarp,
            BarrierKind::Block => Relation::SameBlock,
            BarrierKind::Grid => Relation::Any,
        };
        let scope = b.guard.scope();
        let uniform = match b.kind {
            BarrierKind::Grid => scope == Scope::Grid,
            _ => scope <= Scope::Block,
        };
        if uniform {
            return Divergence::Uniform;
        }
        if !self::thread_specific(&b.guard, rel, thread_specific) {
            // Both threads' instances would be the same expression (as
            // below), found without building them: a barrier deep in a loop
            // nest has a guard as long as the nest, and building two copies
            // of it for every barrier made deep nests quadratic.
            return Divergence::Uniform;
        }
        let g1 = self.instantiate(&b.guard, 1, rel, &[], true);
        let g2 = self.instantiate(&b.guard, 2, rel, &[], true);
        if g1 == g2 {
            // Nothing per-thread is left once the iteration is shared: both
            // threads evaluate the same condition (exact, no solver needed).
            return Divergence::Uniform;
        }
        let mut base = vec![g1, Expr::not(g2)];
        base.extend(self.relation_constraints(rel));
        base.extend(self.assumptions(rel, true));
        // Products of run-time values defeat the solver (a grid-stride
        // bound `i + k * gridDim.x * blockDim.x < n` within one warp) until
        // its budget is spent: their linear abstraction is asked first, and
        // when it is unsatisfiable so is the query.
        if self.linear_abstraction_unsat(&base) {
            return Divergence::Uniform;
        }
        for _ in 0..3 {
            match smt::solve(
                &base,
                &self.env,
                self.config,
                self.cache,
                &mut self.counters,
            ) {
                QueryOutcome::Unsat => return Divergence::Uniform,
                QueryOutcome::Unknown(r) => return Divergence::Unknown(r),
                QueryOutcome::Sat(values) => {
                    let l1 = self.lookup_for(&values, 1, rel);
                    let l2 = self.lookup_for(&values, 2, rel);
                    let run = |lookup: &dyn Fn(&Var) -> Option<i64>| {
                        Interpreter {
                            lookup,
                            bitvector: self.env.bitvector,
                            only: &[usize::MAX],
                            max_steps: 200_000,
                            skip: &[],
                        }
                        .run(self.kernel)
                    };
                    let t1 = run(&l1);
                    let t2 = run(&l2);
                    let c1 = t1.barrier_counts.get(&b.id).copied().unwrap_or(0);
                    let c2 = t2.barrier_counts.get(&b.id).copied().unwrap_or(0);
                    let confirmed = if t1.complete && t2.complete {
                        c1 != c2
                    } else {
                        // Instance level: thread 1's guard holds, thread 2's
                        // does not, under the witness.
                        self.eval_model(&base[0], &values) == Some(1)
                            && self.eval_model(&base[1], &values) == Some(1)
                    };
                    let witness = self.witness(&values, rel, 0);
                    if confirmed && super::witness::is_launchable(&witness, rel) {
                        let w = Witness {
                            threads: witness.threads.clone(),
                            values: witness
                                .values
                                .into_iter()
                                .filter(|(n, _)| n != "index")
                                .collect(),
                        };
                        return Divergence::Divergent(Box::new(self.divergence_finding(b, w)));
                    }
                    base.push(exclude_model(&values));
                }
            }
        }
        Divergence::Unknown("the solver's witness did not replay on the concrete model".into())
    }

    /// Whether the linear abstraction of `query`'s products
    /// (`linearize`) is unsatisfiable: then `query` is. Never under
    /// `--bitvector` (the abstraction is over mathematical integers).
    pub(super) fn linear_abstraction_unsat(&mut self, query: &[Expr]) -> bool {
        if self.env.bitvector {
            return false;
        }
        let Some(linear) = super::linearize::abstract_products(query) else {
            return false;
        };
        matches!(
            smt::solve(
                &linear,
                &self.env,
                self.config,
                self.cache,
                &mut self.counters
            ),
            QueryOutcome::Unsat
        )
    }

    pub(super) fn divergence_finding(&self, b: &Barrier, w: Witness) -> Finding {
        let fmt_t = |t: &WitnessThread| {
            format!(
                "({},{},{})",
                t.thread_idx[0], t.thread_idx[1], t.thread_idx[2]
            )
        };
        let what = barrier_name(b);
        let scope = match b.kind {
            BarrierKind::Warp => "warp",
            BarrierKind::Block => "block",
            BarrierKind::Grid => "grid",
        };
        let message = format!(
            "barrier divergence: thread {} of block ({},{},{}) reaches `{what}` but thread {} of {} does not",
            fmt_t(&w.threads[0]),
            w.threads[0].block_idx[0],
            w.threads[0].block_idx[1],
            w.threads[0].block_idx[2],
            fmt_t(&w.threads[1]),
            if b.kind == BarrierKind::Grid {
                format!(
                    "block ({},{},{})",
                    w.threads[1].block_idx[0], w.threads[1].block_idx[1], w.threads[1].block_idx[2]
                )
            } else {
                format!("the same {scope}")
            }
        );
        let mut f = Finding::new(
            FindingKind::BarrierDivergence,
            Some(&self.kernel.name),
            b.span,
            message,
        );
        // Which thread reaches it is the witness's (thread 1 does).
        f.headline = Some(format!("some threads of a {scope} skip `{what}`"));
        f.notes
            .push(format!("thread 1 reaches `{what}`, thread 2 does not"));
        if let Some((span, _)) = b
            .conditions
            .iter()
            .rev()
            .find(|(_, c)| c.scope() == Scope::Thread)
        {
            f.related.push(Related {
                span: *span,
                message:
                    "the thread-dependent condition that decides whether the barrier is reached"
                        .into(),
            });
        }
        f.witness = Some(w);
        f
    }
}

pub(super) enum Divergence {
    Uniform,
    Divergent(Box<Finding>),
    Unknown(String),
}

/// Whether `e` mentions a variable that `KernelContext::instantiate` (loop
/// counters shared, no substitution) names differently for the two threads
/// of `rel`: the other thread's, a thread index, or a block index or unknown
/// whose scope lets it differ between them. When it does not, the two
/// threads' instances of `e` are the same expression. A compound
/// sub-expression's answer is kept in `memo` by its address (and `rel`):
/// guards share the conjunctions of their enclosing conditions, so the
/// guards of a loop nest are looked at in time linear in the nest.
fn thread_specific(e: &Expr, rel: Relation, memo: &mut HashMap<(usize, Relation), bool>) -> bool {
    let key = match e {
        Expr::Const(_) => return false,
        Expr::Var(v) => return v.name.ends_with(OTHER_THREAD) || per_thread(v, rel, true),
        _ => (e as *const Expr as usize, rel),
    };
    if let Some(&known) = memo.get(&key) {
        return known;
    }
    let answer = match e {
        Expr::Un(_, a) | Expr::Pow2(a) => thread_specific(a, rel, memo),
        Expr::Bin(_, a, b) => thread_specific(a, rel, memo) || thread_specific(b, rel, memo),
        Expr::Ite(c, a, b) => {
            thread_specific(c, rel, memo)
                || thread_specific(a, rel, memo)
                || thread_specific(b, rel, memo)
        }
        Expr::Const(_) | Expr::Var(_) => false,
    };
    memo.insert(key, answer);
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_specific_sees_thread_variables_through_shared_conditions() {
        let counter = Expr::Var(Var::new("i@0", VarKind::Counter { pow2: false }));
        let n = Expr::Var(Var::new("n", VarKind::Param { lo: 0, hi: 100 }));
        let tid = Expr::Var(Var::new("threadIdx.x", VarKind::ThreadIdx(0)));
        let block_unknown = Expr::Var(Var::new(
            "u",
            VarKind::Unknown {
                scope: Scope::Block,
                lo: 0,
                hi: 9,
            },
        ));
        let enclosing = Expr::and(
            Expr::bin(BinOp::Ge, counter.clone(), Expr::Const(0)),
            Expr::bin(BinOp::Lt, counter.clone(), n.clone()),
        );
        let mut memo = HashMap::new();
        // Counters are shared between the two threads; parameters are uniform.
        assert!(!thread_specific(&enclosing, Relation::SameBlock, &mut memo));
        // The same (shared) conditions under a thread-dependent one.
        let inner = Expr::and(
            enclosing.clone(),
            Expr::bin(BinOp::Lt, tid.clone(), n.clone()),
        );
        assert!(thread_specific(&inner, Relation::SameBlock, &mut memo));
        // A block-wide unknown differs only between blocks.
        let by_block = Expr::and(enclosing.clone(), Expr::bin(BinOp::Lt, block_unknown, n));
        assert!(!thread_specific(&by_block, Relation::SameBlock, &mut memo));
        assert!(thread_specific(&by_block, Relation::CrossBlock, &mut memo));
        // The other thread's value is per-thread whatever it names.
        let other = Expr::Var(Var::new(
            format!("x{OTHER_THREAD}"),
            VarKind::Param { lo: 0, hi: 1 },
        ));
        assert!(thread_specific(
            &Expr::and(enclosing, other),
            Relation::SameBlock,
            &mut memo
        ));
    }
}
