//! Pre-checks that decide an array's races for every barrier interval at
//! once: the exact offset arithmetic of `a * threadIdx.x + c` indices (no
//! Z3), and one query with every access and counter free. Must not report
//! findings: it only says "no two threads ever collide on this array".

use super::affine;
use super::context::*;
use super::intervals::Instance;
use super::smt::{LaunchEnv, SolverConfig};
use crate::cache::QueryOutcome;
use crate::model::*;

impl<'k> KernelContext<'k> {
    /// Whether no two threads related by `rel` can ever touch the same
    /// element of `array` with a conflicting pair of accesses, whatever the
    /// barriers: one query over every access of the array with every loop
    /// counter free per thread. Each barrier interval's query only adds
    /// constraints to this one (shared iterations, alignment facts), so
    /// unsat here means unsat in every interval, with or without any
    /// barrier. Memoised per kernel.
    /// An exact syntactic pre-check, without Z3: every access to `array`
    /// has the index `a * threadIdx.x + c` (the same `a`, its own constant
    /// `c`), the block is one-dimensional, and no two conflicting accesses
    /// have offsets that two distinct threads of one block can bridge:
    /// `a * (t1 - t2) = c2 - c1` has no solution with `0 < |t1 - t2| <
    /// blockDim.x`. Then no two threads of a block ever touch the same
    /// element, whatever the barriers (`s[tid]`, `s[tid + k * T]` in
    /// staged copies, `s[2 * tid + 1]`). Integer semantics only.
    pub(super) fn offsets_disjoint_per_thread(&self, array: ArrayId) -> bool {
        let env = &self.env;
        let Some(max_block) = self.one_dimensional_block() else {
            return false;
        };
        let mut coefficient = None;
        let mut offsets = Vec::new();
        for a in self
            .kernel
            .accesses()
            .into_iter()
            .filter(|a| a.array == array)
        {
            let Some((coef, offset)) = affine_in_thread_x(&a.index, env, 0) else {
                return false;
            };
            if coef == 0 || *coefficient.get_or_insert(coef) != coef {
                return false;
            }
            offsets.push((a.kind, offset));
        }
        let Some(coef) = coefficient else {
            return false;
        };
        // Only pairs with a write can conflict: writes against everything
        // (linear in the reads, which large kernels have by the thousand).
        offsets.iter().filter(|(k, _)| k.writes()).all(|&(k1, c1)| {
            offsets.iter().all(|&(k2, c2)| {
                let conflict = !(k1 == AccessKind::Atomic && k2 == AccessKind::Atomic);
                let d = c2.checked_sub(c1);
                !conflict
                    || d.is_some_and(|d| {
                        d == 0 || d % coef != 0 || (d / coef).unsigned_abs() >= max_block as u64
                    })
            })
        })
    }

    /// The largest block of a one-dimensional launch in integer mode (the
    /// setting of the exact offset arithmetic), or `None`.
    fn one_dimensional_block(&self) -> Option<i64> {
        let env = &self.env;
        if env.bitvector
            || env.fixed(VarKind::BlockDim(1)) != Some(1)
            || env.fixed(VarKind::BlockDim(2)) != Some(1)
        {
            return None;
        }
        Some(
            env.fixed(VarKind::BlockDim(0))
                .unwrap_or_else(|| env.max_threads.unwrap_or(1024).min(1024)),
        )
    }

    /// The pair version of [`Self::offsets_disjoint_per_thread`]: two
    /// distinct threads of one block never meet through the indices `x`
    /// and `y` (`a * threadIdx.x + c1` and `a * threadIdx.x + c2`, whose
    /// offsets no two threads of a block can bridge). Exact, no Z3.
    pub(super) fn pair_disjoint_per_thread(&self, x: &Expr, y: &Expr) -> bool {
        let Some(max_block) = self.one_dimensional_block() else {
            return false;
        };
        let (Some((a1, c1)), Some((a2, c2))) = (
            affine_in_thread_x(x, &self.env, 0),
            affine_in_thread_x(y, &self.env, 0),
        ) else {
            return false;
        };
        if a1 == 0 || a1 != a2 {
            return false;
        }
        c2.checked_sub(c1)
            .is_some_and(|d| d == 0 || d % a1 != 0 || (d / a1).unsigned_abs() >= max_block as u64)
    }

    /// Whether two distinct threads of one block never meet through the
    /// instances `i` (thread 1) and `j` (thread 2) of one barrier interval,
    /// by the exact rules of `affine` (no Z3), read on thread 1's view of
    /// both: the variables that have another name in thread 2's view (its
    /// thread index, counters and values of its own) vary, every other one
    /// (a loop counter of the interval's iteration, which both threads
    /// share) is the same for both. Where [`Self::index_injective`] must
    /// take every counter as varying (its accesses may be in different
    /// iterations), the interval's shared counters make a stride of the
    /// iteration thread-uniform: the pair cells `2 * t - (t & (s - 1))`
    /// and `+ s` of a compare-exchange step, with `s = (size / 2) >>
    /// stride` a power of two by its form and its loop guard. Cells only
    /// (not byte ranges), integer semantics only.
    pub(super) fn interval_pair_disjoint(
        &self,
        inst_exprs: &[Vec<(Expr, Expr)>],
        i: usize,
        j: usize,
        rel: Relation,
    ) -> bool {
        if self.env.bitvector || rel.cross_block() {
            return false;
        }
        let mut own = std::collections::BTreeSet::new();
        let mut other = std::collections::BTreeSet::new();
        for k in [i, j] {
            for (views, set) in [
                (&inst_exprs[k][0], &mut own),
                (&inst_exprs[k][1], &mut other),
            ] {
                views.0.for_each_var(&mut |v| {
                    set.insert(v.clone());
                });
                views.1.for_each_var(&mut |v| {
                    set.insert(v.clone());
                });
            }
        }
        // Each assumption, once per thread.
        let assumed = self.assumptions(rel, false);
        for (n, a) in assumed.iter().enumerate() {
            let set = if n % 2 == 0 { &mut own } else { &mut other };
            a.for_each_var(&mut |v| {
                set.insert(v.clone());
            });
        }
        let varying = |v: &Var| own.contains(v) != other.contains(v);
        let env = &self.env;
        let fixed = |kind: VarKind| env.fixed(kind);
        // The coordinates in which two threads of one block may differ.
        let identity: Vec<VarKind> = (0..3u8)
            .filter(|d| env.fixed(VarKind::BlockDim(*d)) != Some(1))
            .map(VarKind::ThreadIdx)
            .collect();
        let (gi, xi) = &inst_exprs[i][0];
        let (gj, xj) = &inst_exprs[j][0];
        let guard_i = affine::conjuncts(gi);
        let guard_j = affine::conjuncts(gj);
        let mut shared: Vec<&Expr> = guard_i
            .iter()
            .copied()
            .filter(|c| guard_j.contains(c))
            .collect();
        shared.extend(assumed.iter().flat_map(affine::conjuncts));
        let mut all_i = guard_i.clone();
        all_i.extend(assumed.iter().flat_map(affine::conjuncts));
        let mut all_j = guard_j.clone();
        all_j.extend(assumed.iter().flat_map(affine::conjuncts));
        let fa = affine::Facts {
            varying: &varying,
            fixed: &fixed,
            guard: all_i,
            shared: shared.clone(),
        };
        let fb = affine::Facts {
            varying: &varying,
            fixed: &fixed,
            guard: all_j,
            shared,
        };
        if affine::exclusive_guards(&fa, &fb) {
            return true;
        }
        let (ra, oa) = fa.split_offset(xi);
        let (rb, ob) = fa.split_offset(xj);
        if ra != rb || !fa.varies(&ra) {
            return false;
        }
        if oa == ob {
            // Equal offsets: equal indices mean one thread when the index
            // determines every coordinate in which the threads may differ.
            let pinned = affine::common_pins(&fa, &fb);
            return [&fa, &fb].iter().all(|f| {
                f.injective(&ra, 0).is_some_and(|vars| {
                    identity
                        .iter()
                        .all(|kind| vars.iter().chain(&pinned).any(|v| v.kind == *kind))
                })
            });
        }
        affine::offsets_apart(&ra, &oa, &ob, &fa, &fb)
    }

    /// An exact pre-check without Z3: every access to `array` has an index
    /// `r + X` with one varying part `r` (the same for all) injective in
    /// the identity of a thread (global ids `blockIdx * blockDim +
    /// threadIdx`, `y * width + x` under `x < width`, grid-stride loops,
    /// warp layouts: see `affine`) and a thread-uniform offset `X`; two
    /// offsets either are equal (then equal indices mean one thread) or
    /// differ by a multiple of some `M` with `0 <= r < M` (then the
    /// indices never meet). So two distinct threads never touch one
    /// element, whatever the barriers. Integer semantics only.
    pub(super) fn index_injective(&self, array: ArrayId, rel: Relation) -> bool {
        if self.env.bitvector {
            return false;
        }
        let accesses: Vec<&Access> = self
            .kernel
            .accesses()
            .into_iter()
            .filter(|a| a.array == array)
            .collect();
        let varying = |v: &Var| match v.kind {
            VarKind::ThreadIdx(_) | VarKind::Counter { .. } => true,
            // A value made inside a loop: one per iteration, and the two
            // threads may be in different iterations.
            VarKind::Unknown { .. } if crate::symbols::is_iteration_tagged(&v.name) => true,
            VarKind::BlockIdx(_) | VarKind::Unknown { .. } => rel.may_differ(v.scope()),
            _ => false,
        };
        let env = &self.env;
        // The kernel's assumptions hold wherever an access happens.
        let assumed: Vec<&Expr> = self
            .kernel
            .assumptions
            .iter()
            .flat_map(affine::conjuncts)
            .collect();
        // A launch size the launch fixes or an assumption states
        // (`gridDim.y == 1` of a one-dimensional launch site).
        let stated = |kind: VarKind| {
            assumed.iter().find_map(|c| match c {
                Expr::Bin(BinOp::Eq, a, b) => match (&**a, &**b) {
                    (Expr::Var(v), Expr::Const(n)) | (Expr::Const(n), Expr::Var(v))
                        if v.kind == kind =>
                    {
                        Some(*n)
                    }
                    _ => None,
                },
                _ => None,
            })
        };
        let fixed = |kind: VarKind| env.fixed(kind).or_else(|| stated(kind));
        // The coordinates in which two threads of the relation may differ.
        let mut identity = Vec::new();
        for d in 0..3u8 {
            if fixed(VarKind::BlockDim(d)) != Some(1) {
                identity.push(VarKind::ThreadIdx(d));
            }
            if rel.cross_block() && fixed(VarKind::GridDim(d)) != Some(1) {
                identity.push(VarKind::BlockIdx(d));
            }
        }
        // What every access's guard says (with the assumptions).
        let mut shared: Vec<&Expr> = accesses
            .first()
            .map(|a| affine::conjuncts(&a.guard))
            .unwrap_or_default();
        for a in accesses.iter().skip(1) {
            let mine = affine::conjuncts(&a.guard);
            shared.retain(|c| mine.contains(c));
        }
        shared.extend(assumed.iter().copied());
        let facts: Vec<affine::Facts> = accesses
            .iter()
            .map(|a| {
                let mut guard = affine::conjuncts(&a.guard);
                guard.extend(assumed.iter().copied());
                affine::Facts {
                    varying: &varying,
                    fixed: &fixed,
                    guard,
                    shared: shared.clone(),
                }
            })
            .collect();
        let Some(first) = facts.first() else {
            return false;
        };
        // Byte ranges of one width `w` starting at multiples of `w` meet
        // only where they start together: cells of `w` bytes.
        if self.kernel.arrays[array].byte_addressed {
            let w = accesses[0].width;
            let aligned = |e: &Expr| {
                first
                    .linear_form(e)
                    .is_some_and(|(terms, k)| k % w == 0 && terms.iter().all(|(c, _)| c % w == 0))
            };
            if w < 1 || accesses.iter().any(|a| a.width != w || !aligned(&a.index)) {
                return false;
            }
        }
        let split: Vec<(Expr, Expr)> = accesses
            .iter()
            .map(|a| first.split_offset(&a.index))
            .collect();
        let r = &split[0].0;
        if split.iter().any(|(x, _)| x != r) {
            return low_digit_owned(&accesses, &facts, &identity);
        }
        let Some(injective_in) = facts
            .iter()
            .map(|f| f.injective(r, 0))
            .collect::<Option<Vec<_>>>()
        else {
            return false;
        };
        // Equal indices at equal offsets mean one thread when the index
        // determines every coordinate in which the two threads may differ,
        // or both guards pin the rest to the same value (`threadIdx.x ==
        // 0` twice; not `threadIdx.x == 0` against `threadIdx.x == 1`).
        let one_thread = |i: usize, j: usize| {
            let pinned = affine::common_pins(&facts[i], &facts[j]);
            [i, j].iter().all(|&k| {
                identity.iter().all(|kind| {
                    injective_in[k]
                        .iter()
                        .chain(&pinned)
                        .any(|v| v.kind == *kind)
                })
            })
        };
        // Writes against everything: only pairs with a write can conflict.
        for (w, a) in accesses.iter().enumerate().filter(|(_, a)| a.kind.writes()) {
            for (o, b) in accesses.iter().enumerate() {
                // Each pair in program order, as the rules are stated.
                let (i, j) = (w.min(o), w.max(o));
                let conflict = !(a.kind == AccessKind::Atomic && b.kind == AccessKind::Atomic);
                if !conflict {
                    continue;
                }
                let decided = if affine::exclusive_guards(&facts[i], &facts[j]) {
                    true
                } else if split[i].1 == split[j].1 {
                    one_thread(i, j)
                } else {
                    affine::offsets_apart(r, &split[i].1, &split[j].1, &facts[i], &facts[j])
                };
                if !decided {
                    return false;
                }
            }
        }
        true
    }

    pub(super) fn barrier_independent(&mut self, array: ArrayId, rel: Relation) -> bool {
        if let Some(&known) = self.independent.get(&(array, rel)) {
            return known;
        }
        let group: Vec<Instance> = self
            .kernel
            .accesses()
            .into_iter()
            .filter(|a| a.array == array)
            .map(|a| Instance {
                access: a.id,
                subst: Vec::new(),
                extra: Vec::new(),
                tag: 0,
                skip_loops: Vec::new(),
            })
            .collect();
        let pairs = conflicting_pairs(self.kernel, array);
        self.counters.pairs += pairs;
        // The exact rules compare single cells; byte ranges go to Z3.
        let byte_ranges = self.kernel.arrays[array].byte_addressed;
        let exact = (!byte_ranges && !rel.cross_block() && self.offsets_disjoint_per_thread(array))
            || self.index_injective(array, rel);
        if exact {
            self.counters.pairs_without_z3 += pairs;
            self.independent.insert((array, rel), true);
            return true;
        }
        let refs: Vec<&Instance> = group.iter().collect();
        let independent = if pairs == 0 {
            // Reads only, or atomics only.
            true
        } else if self.concrete_collision(&refs, rel) {
            // Two threads collide on the array at a small launch: the
            // query below would be satisfiable.
            false
        } else if group.len() > PRECHECK_MAX_ACCESSES {
            // Its query would cost more than the intervals' queries it
            // could spare.
            false
        } else {
            match self.group_query(&group, rel, None) {
                None => {
                    self.counters.pairs_without_z3 += pairs;
                    true
                }
                Some(q) => {
                    // A pre-check: a short budget (resources, not time: the
                    // same on a loaded machine), undecided means "check
                    // interval by interval" as before.
                    let config = SolverConfig {
                        witness: false,
                        ..self.config.capped(PRECHECK_RLIMIT)
                    };
                    let before = self.config.budget.map_or(0, |b| b.spent());
                    let o = self.solve_concrete_first(&q.base, config);
                    log_precheck(self.config.budget.map_or(0, |b| b.spent()) - before, &o);
                    matches!(o, QueryOutcome::Unsat)
                }
            }
        };
        self.independent.insert((array, rel), independent);
        independent
    }
}

/// Profiling aid beside `smt::log_query`'s line per query: the units a
/// barrier-independence pre-check spent and its answer (a satisfiable one
/// decided nothing: the intervals are asked as if it had not run).
fn log_precheck(units: u64, outcome: &QueryOutcome) {
    if std::env::var_os("SYNCSCOPE_QUERY_LOG").is_none() {
        return;
    }
    let answer = match outcome {
        QueryOutcome::Unsat => "unsat",
        QueryOutcome::Sat(_) => "sat",
        QueryOutcome::Unknown(_) => "unknown",
    };
    eprintln!("syncscope-precheck {units} units {answer}");
}

/// Whether every access to an array has the index `g + k * M` with one low
/// part `g` (the same sum in every access), one thread-uniform place value
/// `M` and any `k` of its own (a loop row, a run-time offset, several
/// terms), where `0 <= g < M` whenever the access happens and `g`
/// determines every coordinate in which the two threads may differ: each
/// thread owns the column `g` of rows `M` wide (`od[col + row * width]`
/// in loops over rows, with `col < width` from a guard or from a launch
/// `<<<width / threads, threads>>>`). Equal indices `g1 + k1 * M == g2 +
/// k2 * M` with both `g` in `[0, M)` have `g1 == g2` (their difference is
/// a multiple of `M` smaller than `M`), hence one thread: no two threads
/// ever touch one element. A theorem over the integers, whatever the `k`.
fn low_digit_owned(accesses: &[&Access], facts: &[affine::Facts], identity: &[VarKind]) -> bool {
    let Some(first) = facts.first() else {
        return false;
    };
    let mut places = Vec::new();
    for a in accesses {
        first.place_values(&a.index, &mut places);
    }
    places.iter().any(|m| {
        let mut key = None;
        accesses.iter().zip(facts).all(|(a, f)| {
            let g = f.low_digit(&a.index, m);
            let same_low = *key.get_or_insert_with(|| f.sum_key(&g)) == f.sum_key(&g);
            same_low
                && f.nonneg(&g, 0)
                && f.below(&g, m, 0)
                && f.injective(&g, 0).is_some_and(|s| {
                    identity
                        .iter()
                        .all(|kind| s.iter().any(|v| v.kind == *kind))
                })
        })
    })
}

/// The pairs of accesses to `array` that could race (a write and another
/// access, not two atomics), counting an access with itself.
pub(super) fn conflicting_pairs(kernel: &Kernel, array: ArrayId) -> u64 {
    let kinds: Vec<AccessKind> = kernel
        .accesses()
        .into_iter()
        .filter(|a| a.array == array)
        .map(|a| a.kind)
        .collect();
    // Counted, not enumerated (a large kernel has tens of thousands of
    // accesses to one array): the unordered pairs with repetition, less
    // those of two reads and those of two atomics.
    let pairs = |n: u64| n * (n + 1) / 2;
    let count = |kind: AccessKind| kinds.iter().filter(|k| **k == kind).count() as u64;
    pairs(kinds.len() as u64) - pairs(count(AccessKind::Read)) - pairs(count(AccessKind::Atomic))
}

/// Arrays with more accesses than this get no barrier-independence query.
const PRECHECK_MAX_ACCESSES: usize = 2_000;

/// The Z3 resources for the barrier-independence pre-check. A satisfiable
/// answer decides nothing (the intervals are asked next), and on NVIDIA's
/// samples those were a sixth of all units, a few of them 1.5 to 2.6
/// million each (cooperative-groups grid loops); past a million, the
/// intervals' own queries cost about what the pre-check would have
/// (5 million: 161 million units in all; 1 million: 156; 300 thousand:
/// 159).
pub(super) const PRECHECK_RLIMIT: u32 = 1_000_000;

/// `e` as `a * threadIdx.x + c` with integers `a` and `c` (launch sizes the
/// environment fixes are constants), or `None` for any other form.
pub(super) fn affine_in_thread_x(e: &Expr, env: &LaunchEnv, depth: usize) -> Option<(i64, i64)> {
    if depth > 64 {
        return None;
    }
    let rec = |x: &Expr| affine_in_thread_x(x, env, depth + 1);
    match e {
        Expr::Const(c) => Some((0, *c)),
        Expr::Var(v) => match v.kind {
            VarKind::ThreadIdx(0) => Some((1, 0)),
            kind => env.fixed(kind).map(|c| (0, c)),
        },
        Expr::Un(UnOp::Neg, x) => {
            let (a, c) = rec(x)?;
            Some((a.checked_neg()?, c.checked_neg()?))
        }
        Expr::Bin(op @ (BinOp::Add | BinOp::Sub), x, y) => {
            let (a1, c1) = rec(x)?;
            let (a2, c2) = rec(y)?;
            if *op == BinOp::Add {
                Some((a1.checked_add(a2)?, c1.checked_add(c2)?))
            } else {
                Some((a1.checked_sub(a2)?, c1.checked_sub(c2)?))
            }
        }
        Expr::Bin(BinOp::Mul, x, y) => {
            let (a1, c1) = rec(x)?;
            let (a2, c2) = rec(y)?;
            match (a1, a2) {
                (0, _) => Some((c1.checked_mul(a2)?, c1.checked_mul(c2)?)),
                (_, 0) => Some((a1.checked_mul(c2)?, c1.checked_mul(c2)?)),
                _ => None,
            }
        }
        _ => None,
    }
}
