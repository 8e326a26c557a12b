//! Facts about the contents of input arrays the code states
//! (`__requires(__distinct(scan))`, `__requires(__sorted(keys))`,
//! `Kernel::input_orders`), as constraints of a two-thread race query: a
//! scatter `out[scan[i]] = v` is race-free only because the array holds
//! distinct values, which no launch site shows. Must not decide races
//! (`races` adds these constraints to its queries).
//!
//! Each read of a memory cell returns a fresh unknown in the model (two
//! reads of one cell need not agree), so the facts are stated over the
//! reads themselves: for every two reads of a stated array that feed the
//! query (thread 1's, thread 2's, or two of one thread's), when both
//! happen, equal indices give equal values (the kernel never writes the
//! array: lowering sets such a statement aside), and different indices
//! give different values (`__distinct`) or values in the indices' order
//! (`__sorted`). A read in a loop is one unknown per iteration (its name
//! carries the iteration): it is instantiated with the counters of each
//! access instance of the query, as the instance's own guard and index
//! are; a read whose index or guard depends on a counter its name does not
//! carry stands for several cells and stays unconstrained, which assumes
//! less than stated, never more. A read another thread made, whose value
//! a thread read back from a `__shared__` tile (`Kernel::forwarded_reads`),
//! is one more such read, with its index and guard in the reader's terms.

use super::context::*;
use super::intervals::Instance;
use crate::model::*;
use crate::symbols;

/// One thread's read of a stated array: the value it returns, its index
/// and whether it happens, instantiated for that thread.
struct Read {
    array: ArrayId,
    value: Var,
    index: Expr,
    guard: Expr,
}

/// Rounds of following a read's own index and guard to the reads they
/// depend on (`keys[perm[i]]`); what lies deeper stays unconstrained.
const MAX_DEPTH: usize = 4;

impl KernelContext<'_> {
    /// The constraints the stated input orders put on the reads that the
    /// guards and indices `inst_exprs` (per instance of `insts`, per
    /// thread) depend on, under the threads' relation `rel`.
    pub(super) fn input_order_facts(
        &self,
        insts: &[&Instance],
        inst_exprs: &[Vec<(Expr, Expr)>],
        rel: Relation,
    ) -> Vec<Expr> {
        let orders = &self.kernel.input_orders;
        if orders.is_empty() {
            return Vec::new();
        }
        let candidates = self.stated_reads(insts, rel);
        if candidates.is_empty() {
            return Vec::new();
        }
        // The reads the query mentions, then those their own indices and
        // guards mention.
        let mut wanted: Vec<Var> = Vec::new();
        let note = |e: &Expr, wanted: &mut Vec<Var>| {
            e.for_each_var(&mut |v| {
                if !wanted.contains(v) && candidates.iter().any(|r| r.value == *v) {
                    wanted.push(v.clone());
                }
            })
        };
        for per in inst_exprs {
            for (g, x) in per {
                note(g, &mut wanted);
                note(x, &mut wanted);
            }
        }
        let mut followed = 0;
        for _ in 0..MAX_DEPTH {
            let now: Vec<Var> = wanted[followed..].to_vec();
            followed = wanted.len();
            for v in &now {
                if let Some(r) = candidates.iter().find(|r| r.value == *v) {
                    note(&r.guard, &mut wanted);
                    note(&r.index, &mut wanted);
                }
            }
            if followed == wanted.len() {
                break;
            }
        }
        let reads: Vec<&Read> = candidates
            .iter()
            .filter(|r| wanted.contains(&r.value))
            .collect();
        let implies = |c: Expr, then: Expr| Expr::or(Expr::not(c), then);
        let mut out = Vec::new();
        for (i, a) in reads.iter().enumerate() {
            for b in &reads[i + 1..] {
                if a.array != b.array {
                    continue;
                }
                let both = Expr::and(a.guard.clone(), b.guard.clone());
                let (va, vb) = (Expr::Var(a.value.clone()), Expr::Var(b.value.clone()));
                let (xa, xb) = (a.index.clone(), b.index.clone());
                // One cell, one value: the kernel does not write it.
                out.push(implies(
                    Expr::and(both.clone(), Expr::eq(xa.clone(), xb.clone())),
                    Expr::eq(va.clone(), vb.clone()),
                ));
                for order in orders.iter().filter(|o| o.array == a.array) {
                    // Both reads within the extent the fact covers.
                    let both = match &order.extent {
                        Some(n) => {
                            Expr::and(both.clone(), Expr::and(within(&xa, n), within(&xb, n)))
                        }
                        None => both.clone(),
                    };
                    match order.kind {
                        OrderKind::Distinct => out.push(implies(
                            Expr::and(both.clone(), Expr::bin(BinOp::Ne, xa.clone(), xb.clone())),
                            Expr::bin(BinOp::Ne, va.clone(), vb.clone()),
                        )),
                        OrderKind::Sorted => out.extend(non_decreasing(&both, a, b)),
                        OrderKind::Scan { source, inclusive } => {
                            out.extend(non_decreasing(&both, a, b));
                            for f in reads.iter().filter(|f| f.array == source) {
                                out.extend(scan_steps(&both, a, b, f, inclusive));
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// Every read of a stated array, instantiated for each thread with the
    /// loop counters of each instance (one read when its value is the same
    /// for both threads or instances).
    fn stated_reads(&self, insts: &[&Instance], rel: Relation) -> Vec<Read> {
        // A scan's source is read by its facts too.
        let stated = |a: ArrayId| {
            self.kernel.input_orders.iter().any(|o| {
                o.array == a || matches!(o.kind, OrderKind::Scan { source, .. } if source == a)
            })
        };
        let mut out: Vec<Read> = Vec::new();
        for (value, id) in &self.kernel.read_values {
            let Some(access) = self.accesses.get(id) else {
                continue;
            };
            if !stated(access.array) || !one_cell(value, access, &self.kernel.arrays[access.array])
            {
                continue;
            }
            for inst in insts {
                for t in [1u8, 2] {
                    let subst = &inst.subst;
                    let Expr::Var(v) =
                        self.instantiate(&Expr::Var(value.clone()), t, rel, subst, false)
                    else {
                        continue;
                    };
                    if out.iter().any(|r| r.value == v) {
                        continue;
                    }
                    out.push(Read {
                        array: access.array,
                        value: v,
                        index: self.instantiate(&access.index, t, rel, subst, false),
                        guard: self.instantiate(&access.guard, t, rel, subst, false),
                    });
                }
            }
        }
        // Reads another thread made whose value this one read back from
        // `__shared__` memory (`Kernel::forwarded_reads`): cells of the
        // same input, so the same facts hold of them.
        for f in &self.kernel.forwarded_reads {
            if !stated(f.array) || !counters_carried(&f.value, [&f.index, &f.guard]) {
                continue;
            }
            for inst in insts {
                for t in [1u8, 2] {
                    let subst = &inst.subst;
                    let Expr::Var(v) =
                        self.instantiate(&Expr::Var(f.value.clone()), t, rel, subst, false)
                    else {
                        continue;
                    };
                    if out.iter().any(|r| r.value == v) {
                        continue;
                    }
                    out.push(Read {
                        array: f.array,
                        value: v,
                        index: self.instantiate(&f.index, t, rel, subst, false),
                        guard: self.instantiate(&f.guard, t, rel, subst, false),
                    });
                }
            }
        }
        out
    }
}

/// `0 <= x < n`.
fn within(x: &Expr, n: &Expr) -> Expr {
    Expr::and(
        Expr::bin(BinOp::Ge, x.clone(), Expr::Const(0)),
        Expr::bin(BinOp::Lt, x.clone(), n.clone()),
    )
}

/// `x < y` gives `a[x] <= a[y]`, both ways round, when both reads happen.
fn non_decreasing(both: &Expr, a: &Read, b: &Read) -> Vec<Expr> {
    let mut out = Vec::new();
    for (p, q) in [(a, b), (b, a)] {
        out.push(Expr::or(
            Expr::not(Expr::and(
                both.clone(),
                Expr::bin(BinOp::Lt, p.index.clone(), q.index.clone()),
            )),
            Expr::bin(
                BinOp::Le,
                Expr::Var(p.value.clone()),
                Expr::Var(q.value.clone()),
            ),
        ));
    }
    out
}

/// Where a prefix sum of non-negative values must grow: for reads `a[x]`
/// and `a[y]` with `x < y`, a positive `source` value read at `x` (an
/// exclusive scan: `a[y]` sums at least `a[x] + source[x]`) or at `y` (an
/// inclusive one: `a[y]` sums at least `a[x] + source[y]`) makes
/// `a[x] < a[y]`; both ways round.
fn scan_steps(both: &Expr, a: &Read, b: &Read, f: &Read, inclusive: bool) -> Vec<Expr> {
    let mut out = Vec::new();
    for (p, q) in [(a, b), (b, a)] {
        let counted_at = if inclusive { &q.index } else { &p.index };
        let premise = Expr::and(
            Expr::and(both.clone(), f.guard.clone()),
            Expr::and(
                Expr::bin(BinOp::Lt, p.index.clone(), q.index.clone()),
                Expr::and(
                    Expr::eq(f.index.clone(), counted_at.clone()),
                    Expr::bin(BinOp::Gt, Expr::Var(f.value.clone()), Expr::Const(0)),
                ),
            ),
        );
        out.push(Expr::or(
            Expr::not(premise),
            Expr::bin(
                BinOp::Lt,
                Expr::Var(p.value.clone()),
                Expr::Var(q.value.clone()),
            ),
        ));
    }
    out
}

/// Whether the unknown `value` a read returns stands for one cell: one
/// element of the array's own type (not bytes seen through a view of
/// another width, whose values the stated order says nothing of), and
/// every loop counter its index and guard depend on is one its name
/// carries (one unknown per iteration of those loops).
pub(crate) fn one_cell(value: &Var, access: &Access, array: &Array) -> bool {
    if array.byte_addressed || access.width != 1 {
        return false;
    }
    counters_carried(value, [&access.index, &access.guard])
}

/// Whether every loop counter `exprs` depend on is one the name of the
/// unknown `value` carries.
fn counters_carried<'e>(value: &Var, exprs: impl IntoIterator<Item = &'e Expr>) -> bool {
    let carried: Vec<&str> = symbols::split_iteration_tag(&value.name)
        .map(|(_, counters)| counters.split(',').collect())
        .unwrap_or_default();
    let mut ok = true;
    for e in exprs {
        e.for_each_var(&mut |v| {
            if matches!(v.kind, VarKind::Counter { .. }) && !carried.contains(&&*v.name) {
                ok = false;
            }
        });
    }
    ok
}
