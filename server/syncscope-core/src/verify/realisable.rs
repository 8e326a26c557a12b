//! Whether a replayed race witness is an execution that exists: beyond the
//! two accesses meeting (what `replay` checks), the values the replay drew
//! must be ones the hardware can hand out together. Two draws of one
//! ticket counter (`atomicAdd(&c, 1)`, `Kernel::ticket_counters`) never
//! return one value; at most one update of a one-shot flag
//! (`Kernel::flag_cells`) ever wins; every assumption of the kernel
//! (`__requires`, `assert`, `__launch_bounds__`) holds for both threads at
//! the witness's launch. The race query asks for these only over the
//! values its two accesses mention; the replay runs the threads' whole
//! programs, so it checks them over every value it used. Must not report
//! findings: a witness that fails is not shown, and the search goes on.

use super::context::*;
use super::replay::eval_expr;
use crate::model::*;
use crate::symbols;
use std::collections::HashSet;

/// A value the replay of one thread drew: the uninstantiated name and what
/// the witness gave it.
pub(super) type Draw = (String, i64);

/// A thread's values, as the replay reads them.
pub(super) type Lookup<'a> = &'a dyn Fn(&Var) -> Option<i64>;

impl KernelContext<'_> {
    /// Whether `name` is a draw the realisability rules constrain under
    /// `rel`: a ticket of a counter, or the result of a one-shot flag's
    /// update, that both threads of the relation share (a `__shared__`
    /// counter or flag is one per block).
    pub(super) fn constrained_draw(&self, name: &str, rel: Relation) -> bool {
        let shared_by_both = |cell: &str| !rel.cross_block() || !self.shared_counter(cell);
        if let Some(c) = symbols::ticket_counter(name) {
            return self.kernel.ticket_counters.iter().any(|k| k == c) && shared_by_both(c);
        }
        if let Some((f, _)) = symbols::winner_flag(name) {
            return self.kernel.flag_cells.iter().any(|k| k == f) && shared_by_both(f);
        }
        false
    }

    /// Why the witness of a replay that used `draws` (thread 1's, thread
    /// 2's) under `lookups` cannot happen, or `None` when it can.
    pub(super) fn unrealisable(
        &self,
        draws: [&[Draw]; 2],
        lookups: [Lookup; 2],
    ) -> Option<&'static str> {
        // Each draw once per thread: a name read twice is one draw (a name
        // with an iteration tag stands for a draw per iteration, which the
        // replay reads as one value: left to the query).
        let mut distinct: Vec<(u8, &str, i64)> = Vec::new();
        for (t, list) in draws.iter().enumerate() {
            let mut seen = HashSet::new();
            for (name, value) in list.iter() {
                if seen.insert(name.as_str()) {
                    distinct.push((t as u8, name.as_str(), *value));
                }
            }
        }
        for (i, &(ta, a, va)) in distinct.iter().enumerate() {
            for &(tb, b, vb) in &distinct[i + 1..] {
                if ta == tb && (symbols::is_iteration_tagged(a) || symbols::is_iteration_tagged(b))
                {
                    continue;
                }
                if let (Some(ca), Some(cb)) =
                    (symbols::ticket_counter(a), symbols::ticket_counter(b))
                {
                    if ca == cb && va == vb {
                        return Some("two draws of one ticket counter got the same ticket");
                    }
                }
                if let (Some((fa, wa)), Some((fb, wb))) =
                    (symbols::winner_flag(a), symbols::winner_flag(b))
                {
                    if fa == fb && wins(wa, va) && wins(wb, vb) {
                        return Some("two updates of a one-shot flag both won it");
                    }
                }
            }
        }
        let bound = self.kernel.max_threads.unwrap_or(1024).min(1024);
        let threads: Option<i64> = (0..3u8)
            .map(|d| (lookups[0])(&super::smt::block_dim_var(d)))
            .try_fold(1i64, |acc, x| acc.checked_mul(x?));
        if threads.is_some_and(|n| n > bound) {
            return Some("the witness's block is larger than the kernel's launch bounds");
        }
        for a in &self.kernel.assumptions {
            for lookup in lookups {
                if eval_expr(a, lookup, self.env.bitvector) == Some(0) {
                    return Some("an assumption of the kernel fails at the witness");
                }
            }
        }
        None
    }
}

/// Whether an update's result `value` won the flag.
fn wins(win: symbols::Win, value: i64) -> bool {
    match win {
        symbols::Win::Equals(c) => value == c,
        symbols::Win::Differs(c) => value != c,
    }
}
