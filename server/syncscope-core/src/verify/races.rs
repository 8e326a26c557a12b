//! Races: per barrier interval and array, one grouped two-thread query with
//! selector variables over every access instance; each satisfiable answer is
//! a racing pair, confirmed on the concrete interpreter, blocked, and asked
//! again (every race in one run). Must not decide divergence or redundancy,
//! nor word findings (`race_findings` does).

use super::collisions::Launch;
use super::context::*;
use super::intervals::{intervals, intervals_around, Instance};
use super::replay::{eval_expr, Interpreter};
use super::smt::SolverConfig;
use super::witness::exclude_model;
use crate::cache::QueryOutcome;
use crate::model::*;
use crate::report::*;
use crate::symbols;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A confirmed race between two accesses.
#[derive(Clone, Debug)]
pub(crate) struct RaceHit {
    pub first: usize,
    pub second: usize,
    pub relation: Relation,
    pub witness: Witness,
    pub index: i64,
    pub loop_values: [Vec<(String, i64)>; 2],
    /// The witness was solved in a fresh Z3 context (the same query gives
    /// the same witness in any analysis): only such a witness is shown.
    pub reproducible: bool,
    /// The two access instances, to solve the pair alone again.
    pub instances: Box<(Instance, Instance)>,
}

#[derive(Default)]
pub(crate) struct RaceSet {
    pub pairs: BTreeMap<(usize, usize), RaceHit>,
    /// (first access of the group, reason) for undecided groups.
    pub unknown: Vec<(usize, String)>,
    /// Pairs the solver found whose witnesses did not replay, with the
    /// relation of the two threads (another relation may still confirm
    /// the pair: threads of different blocks, say).
    pub unconfirmed: Vec<(usize, usize, Relation)>,
    /// Unconfirmed pairs whose query the solver decided in 32-bit vectors
    /// (it has bitwise operations): a witness that wraps around, which the
    /// integer model does not (see `smt::switched_to_bitvectors`).
    pub unconfirmed_in_bitvectors: std::collections::BTreeSet<(usize, usize)>,
    /// With a barrier skipped (the redundancy check): some race query was
    /// satisfiable, so the barrier is needed. The search stops there: no
    /// witness is confirmed or reported for a barrier that is kept.
    pub needed: bool,
    /// Pairs that collide only writing the same value (`benign-race`);
    /// empty with `--strict-benign`, where they are `pairs`.
    pub benign: BTreeMap<(usize, usize), RaceHit>,
}

impl<'k> KernelContext<'k> {
    /// Every racing pair of accesses. With `skip`, the races that removing
    /// that barrier would create: only pairs of instances it separated.
    pub(crate) fn find_races(&mut self, skip: Option<usize>) -> RaceSet {
        let mut set = RaceSet::default();
        for rel in self.relations.clone() {
            let level = rel.level();
            if let Some(b) = skip {
                if let Some((kind, _)) = self.barrier_places.get(&b) {
                    if !level.splits(*kind) {
                        continue;
                    }
                }
            }
            let kernel = self.kernel;
            // Arrays no barrier matters for need no interval at all.
            let mut dependent = Vec::new();
            for array in self.accessed_arrays.clone() {
                // Shared memory is never shared across blocks.
                let other_block =
                    rel.cross_block() && kernel.arrays[array].space == MemorySpace::Shared;
                if other_block {
                    continue;
                }
                if !self.barrier_independent(array, rel) {
                    dependent.push(array);
                }
            }
            if dependent.is_empty() {
                continue;
            }
            let top_level = skip.and_then(|b| self.barrier_places.get(&b)?.1.map(|pos| (b, pos)));
            let ivs = match top_level {
                Some((b, pos)) => {
                    intervals_around(kernel, level, b, pos, &mut |facts| self.may_hold(facts))
                }
                None => intervals(kernel, level, skip, &mut |facts| self.may_hold(facts)),
            };
            for iv in ivs {
                if skip.is_some()
                    && !iv
                        .iter()
                        .any(|i| i.tag != iv[0].tag || !i.skip_loops.is_empty())
                {
                    // Nothing in this interval was separated by the barrier.
                    continue;
                }
                let mut by_array: BTreeMap<ArrayId, Vec<Instance>> = BTreeMap::new();
                for inst in iv {
                    let a = self.accesses[&inst.access];
                    let space = self.kernel.arrays[a.array].space;
                    if space == MemorySpace::Shared && rel.cross_block() {
                        continue;
                    }
                    by_array.entry(a.array).or_default().push(inst);
                }
                for (array, group) in by_array {
                    if !dependent.contains(&array) {
                        continue;
                    }
                    if self.cancelled() {
                        return set;
                    }
                    self.race_group(&group, rel, &mut set, skip);
                    if skip.is_some() && (set.needed || !set.unknown.is_empty()) {
                        return set;
                    }
                }
            }
        }
        set
    }

    /// The grouped two-thread query of `group` (one array, one interval):
    /// selectors `sel1`/`sel2` pick each thread's access, both happen and
    /// their indices meet in `index`. `None` when no pair can race (no
    /// write, or atomics only).
    pub(super) fn group_query<'g>(
        &self,
        group: &'g [Instance],
        rel: Relation,
        skip: Option<usize>,
    ) -> Option<GroupQuery<'g>> {
        let lockstep = self.options.warp_sync && rel == Relation::SameWarp;
        let insts: Vec<&Instance> = group
            .iter()
            .filter(|i| !lockstep || self.accesses[&i.access].kind == AccessKind::Write)
            .collect();
        let kinds: Vec<AccessKind> = insts
            .iter()
            .map(|i| self.accesses[&i.access].kind)
            .collect();
        if !kinds.iter().any(|k| k.writes()) || kinds.iter().all(|k| *k == AccessKind::Atomic) {
            return None;
        }
        let n = insts.len() as i64;
        let idx = Expr::Var(Var::new("index", VarKind::Shared));
        let mut base = Vec::new();
        base.push(Expr::bin(BinOp::Ge, sel(1), Expr::Const(0)));
        base.push(Expr::bin(BinOp::Le, sel(1), sel(2)));
        base.push(Expr::bin(BinOp::Lt, sel(2), Expr::Const(n)));
        if lockstep {
            base.push(Expr::eq(sel(1), sel(2)));
        }
        let mut inst_exprs = Vec::new();
        for (i, inst) in insts.iter().enumerate() {
            let a = self.accesses[&inst.access];
            let guard =
                Expr::all(std::iter::once(a.guard.clone()).chain(inst.extra.iter().cloned()));
            let mut per = Vec::new();
            for t in [1u8, 2] {
                let g = self.instantiate(&guard, t, rel, &inst.subst, false);
                let x = self.instantiate(&a.index, t, rel, &inst.subst, false);
                // The shared cell lies in the access's range.
                let hit = if a.width == 1 {
                    Expr::eq(idx.clone(), x.clone())
                } else {
                    Expr::and(
                        Expr::bin(BinOp::Le, x.clone(), idx.clone()),
                        Expr::bin(
                            BinOp::Lt,
                            idx.clone(),
                            Expr::add(x.clone(), Expr::Const(a.width)),
                        ),
                    )
                };
                let body = Expr::and(g.clone(), hit);
                base.push(Expr::or(
                    Expr::not(Expr::eq(sel(t), Expr::Const(i as i64))),
                    body,
                ));
                per.push((g, x));
            }
            inst_exprs.push(per);
        }
        let is = |t: u8, pred: &dyn Fn(AccessKind) -> bool| {
            kinds
                .iter()
                .enumerate()
                .filter(|(_, k)| pred(**k))
                .fold(Expr::fals(), |acc, (i, _)| {
                    Expr::or(acc, Expr::eq(sel(t), Expr::Const(i as i64)))
                })
        };
        if !kinds.iter().all(|k| k.writes()) {
            base.push(Expr::or(is(1, &|k| k.writes()), is(2, &|k| k.writes())));
        }
        if kinds.contains(&AccessKind::Atomic) {
            let atomic = |k: AccessKind| k == AccessKind::Atomic;
            base.push(Expr::not(Expr::and(is(1, &atomic), is(2, &atomic))));
        }
        base.extend(self.relation_constraints(rel));
        base.extend(self.assumptions(rel, false));
        base.extend(self.distinct_tickets(&inst_exprs, rel));
        base.extend(self.input_order_facts(&insts, &inst_exprs, rel));
        base.extend(self.one_winner(&inst_exprs, rel));
        base.extend(self.last_block_constraints(&insts, rel));
        if skip.is_some() {
            base.push(self.separated(&insts, rel));
        }
        Some(GroupQuery {
            insts,
            base,
            inst_exprs,
        })
    }

    /// Two distinct threads get different values from atomic adds on one
    /// ticket counter (`Kernel::ticket_counters`): each ticket thread 1's
    /// accesses use differs from each one thread 2's use. A counter in
    /// shared memory is one per block: its tickets differ only between
    /// threads of one block.
    fn distinct_tickets(&self, inst_exprs: &[Vec<(Expr, Expr)>], rel: Relation) -> Vec<Expr> {
        let counters: Vec<&String> = self
            .kernel
            .ticket_counters
            .iter()
            .filter(|c| !rel.cross_block() || !self.shared_counter(c))
            .collect();
        if counters.is_empty() {
            return Vec::new();
        }
        let per_thread = vars_per_thread(inst_exprs, |v| {
            symbols::ticket_counter(&v.name).is_some_and(|c| counters.iter().any(|k| *k == c))
        });
        let mut out = Vec::new();
        for (a, b) in draw_pairs(&per_thread) {
            if symbols::ticket_counter(&a.name) == symbols::ticket_counter(&b.name) {
                out.push(Expr::bin(
                    BinOp::Ne,
                    Expr::Var(a.clone()),
                    Expr::Var(b.clone()),
                ));
            }
        }
        out
    }

    /// At most one update of a one-shot flag (`Kernel::flag_cells`) sees a
    /// winning result (`symbols::Win`): no result of thread 1's updates of a
    /// flag wins together with one of thread 2's. A `__shared__` flag is one
    /// per block: nothing is known between threads of different blocks.
    fn one_winner(&self, inst_exprs: &[Vec<(Expr, Expr)>], rel: Relation) -> Vec<Expr> {
        let flags: Vec<&String> = self
            .kernel
            .flag_cells
            .iter()
            .filter(|c| !rel.cross_block() || !self.shared_counter(c))
            .collect();
        if flags.is_empty() {
            return Vec::new();
        }
        let per_thread = vars_per_thread(inst_exprs, |v| {
            symbols::winner_flag(&v.name).is_some_and(|(c, _)| flags.iter().any(|k| *k == c))
        });
        let wins = |v: &Var, win: symbols::Win| {
            let x = Expr::Var(v.clone());
            match win {
                symbols::Win::Equals(c) => Expr::eq(x, Expr::Const(c)),
                symbols::Win::Differs(c) => Expr::bin(BinOp::Ne, x, Expr::Const(c)),
            }
        };
        let mut out = Vec::new();
        for (a, b) in draw_pairs(&per_thread) {
            let (Some((fa, wa)), Some((fb, wb))) =
                (symbols::winner_flag(&a.name), symbols::winner_flag(&b.name))
            else {
                continue;
            };
            if fa == fb {
                out.push(Expr::not(Expr::and(wins(a, wa), wins(b, wb))));
            }
        }
        out
    }

    /// Whether the ticket counter `array:index` is in shared memory.
    pub(super) fn shared_counter(&self, counter: &str) -> bool {
        counter
            .split(':')
            .next()
            .and_then(|a| a.parse::<usize>().ok())
            .and_then(|a| self.kernel.arrays.get(a))
            .is_some_and(|a| a.space == MemorySpace::Shared)
    }

    pub(super) fn race_group(
        &mut self,
        group: &[Instance],
        rel: Relation,
        set: &mut RaceSet,
        skip: Option<usize>,
    ) {
        let Some(GroupQuery {
            insts,
            mut base,
            inst_exprs,
        }) = self.group_query(group, rel, skip)
        else {
            return;
        };
        // Unless strict, a pair of writes of provably equal values is no
        // data race: the race queries ask for different values, and a last
        // query afterwards for equal ones (a `benign-race`).
        let mut same_value = None;
        if skip.is_none() && !self.options.strict_benign && self.writes_may_collide(&insts, rel) {
            if let Some((differ, same)) = self.written_values(&insts, rel) {
                base.push(differ);
                same_value = Some((base.len() - 1, same));
            }
        }
        // Block pairs already found in other intervals: one report per pair.
        // A blocked pair's constraints join the query only when it is
        // asked (most groups are decided without it).
        let mut blocked: Vec<(usize, usize)> = Vec::new();
        let mut positions: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, inst) in insts.iter().enumerate() {
            positions.entry(inst.access).or_default().push(i);
        }
        let exclude = |base: &mut Vec<Expr>, pairs: &[(usize, usize)]| {
            for &(p, q) in pairs {
                let mut both: Vec<(usize, usize)> = Vec::new();
                for &i in positions.get(&p).into_iter().flatten() {
                    for &j in positions.get(&q).into_iter().flatten() {
                        both.push((i.min(j), i.max(j)));
                    }
                }
                both.sort_unstable();
                both.dedup();
                for (i, j) in both {
                    base.push(Expr::not(Expr::and(
                        Expr::eq(sel(1), Expr::Const(i as i64)),
                        Expr::eq(sel(2), Expr::Const(j as i64)),
                    )));
                }
            }
        };
        let mut excluded = 0;
        // The pairs found so far whose both accesses are in this group, in
        // order; then those whose witnesses did not replay.
        let mut accesses: Vec<usize> = positions.keys().copied().collect();
        accesses.sort_unstable();
        for &p in &accesses {
            for (&(_, q), _) in set.pairs.range((p, p)..=(p, usize::MAX)) {
                if positions.contains_key(&q) {
                    blocked.push((p, q));
                }
            }
        }
        for (p, q, r) in &set.unconfirmed {
            if *r == rel && positions.contains_key(p) && positions.contains_key(q) {
                blocked.push((*p.min(q), *p.max(q)));
            }
        }
        // A kernel whose model has a part it cannot represent is
        // not-verified whatever these queries answer, unless one finds a
        // definite race (or another check a divergence or a failed
        // assertion). A pair whose race would depend on what the model does
        // not decide, read from its two accesses (an unseen name, a lock
        // both hold, an `atomicInc` ticket), can only be a possible race,
        // itself not-verified: no answer about it can change the verdict,
        // so it is not asked. Every other pair is asked as before, so a
        // definite race still makes the kernel racy.
        if skip.is_none() && !self.kernel.unsupported.is_empty() {
            let pinned = super::undecided::pinned_unseen(self.kernel);
            for (x, &p) in accesses.iter().enumerate() {
                for &q in &accesses[x..] {
                    let (a, b) = (self.accesses[&p], self.accesses[&q]);
                    if !blocked.contains(&(p, q))
                        && !super::undecided::unmodelled_origins(a, b, &pinned).is_empty()
                    {
                        blocked.push((p, q));
                    }
                }
            }
            if candidate_pairs(&insts, &kinds_of(self, &insts), &blocked).is_empty() {
                return;
            }
        }
        // Solve for a reproducible witness until one pair is confirmed.
        let mut want_witness = true;
        // Pairs two threads of a small launch collide through need no
        // solver to be found: each is replayed like a solver's model (its
        // witness depends on the model alone, so it is reproducible). The
        // redundancy check only needs to know that one exists.
        let mut decided_without_solver = false;
        let mut found_concretely = false;
        for launch in [Launch::Small, Launch::Large] {
            if skip.is_some() {
                if !self
                    .collisions_up_to(&insts, rel, true, 1, launch)
                    .is_empty()
                {
                    set.needed = true;
                    return;
                }
                continue;
            }
            for c in self.concrete_collisions(&insts, rel, false, launch) {
                let (pi, qj) = (insts[c.first], insts[c.second]);
                let (p, q) = (pi.access, qj.access);
                if blocked.contains(&(p.min(q), p.max(q))) {
                    continue;
                }
                // Two writes may write the same value (a benign race unless
                // strict): the solver's queries, which ask for different
                // values, decide them.
                let writes = |a: usize| self.accesses[&a].kind == AccessKind::Write;
                if same_value.is_some() && writes(p) && writes(q) {
                    continue;
                }
                if let Some(mut hit) = self.confirm_race(
                    pi,
                    qj,
                    rel,
                    &c.values,
                    &inst_exprs[c.first][0],
                    &inst_exprs[c.second][1],
                    skip,
                ) {
                    hit.reproducible = true;
                    want_witness = false;
                    found_concretely = true;
                    self.record_race(set, (p.min(q), p.max(q)), hit);
                    blocked.push((p.min(q), p.max(q)));
                }
            }
            if self.every_pair_decided(&insts, &inst_exprs, &blocked, rel) {
                decided_without_solver = true;
                break;
            }
        }
        // Decide first, when two writes may write the same value: one
        // symbolic query with no witness over the whole group and either
        // written value. Every later query of this group is it with more
        // constraints (a value relation, blocked pairs, a fixed launch), so
        // an unsat answer ends the group: one query where a race-free group
        // asked four (the small launch and the symbolic one, for different
        // and for equal values). A group without written values asks two
        // when race-free (small launch, symbolic), as before: a first query
        // there would spare none. Not for a group with a pair that collided
        // concretely: it has a race, and its witness query comes at once.
        if let Some((at, _)) = same_value
            .as_ref()
            .filter(|_| !decided_without_solver && skip.is_none() && !found_concretely)
        {
            let mut any = base.clone();
            any[*at] = Expr::tru();
            exclude(&mut any, &blocked);
            let config = SolverConfig {
                witness: false,
                ..self.config
            };
            // A model with small run-time values is a model of it (see
            // `solve_small_values`): the group goes on to its rounds at
            // once, where the query itself may search nonlinear products
            // for millions of units only to find it satisfiable too.
            if self.solve_small_values(&any, config).is_none()
                && super::smt::solve(&any, &self.env, config, self.cache, &mut self.counters)
                    == QueryOutcome::Unsat
            {
                return;
            }
        }
        let mut retries: HashMap<(usize, usize), usize> = HashMap::new();
        let mut tried_pairwise = false;
        for _round in 0..64 {
            if decided_without_solver {
                break;
            }
            if self.cancelled() {
                return;
            }
            // The redundancy check only asks whether any race query is
            // satisfiable: no witness, no replay. A race finding shows one
            // witness per group of pairs: the first round solves for a
            // reproducible one, the later rounds (each finds one more
            // racing pair, confirmed by replay) for satisfiability alone
            // (a model that does not replay is asked again with a witness
            // first); a group without a reproducible witness gets one from
            // `pair_witness`.
            let config = SolverConfig {
                witness: skip.is_none() && want_witness,
                ..self.config
            };
            exclude(&mut base, &blocked[excluded..]);
            excluded = blocked.len();
            match self.solve_concrete_first(&base, config) {
                QueryOutcome::Unsat => break,
                QueryOutcome::Sat(_) if skip.is_some() => {
                    set.needed = true;
                    return;
                }
                QueryOutcome::Unknown(reason) => {
                    set.unknown.push((insts[0].access, reason));
                    return;
                }
                QueryOutcome::Sat(values) => {
                    let Some(((p, q), hit)) =
                        self.replay_chosen(&insts, &inst_exprs, rel, &values, skip)
                    else {
                        return;
                    };
                    match hit {
                        Some(mut hit) => {
                            hit.reproducible = config.witness;
                            want_witness = false;
                            self.record_race(set, (p.min(q), p.max(q)), hit);
                            blocked.push((p.min(q), p.max(q)));
                            if skip.is_none() && !tried_pairwise {
                                tried_pairwise = true;
                                let left =
                                    candidate_pairs(&insts, &kinds_of(self, &insts), &blocked);
                                if left.len() <= PAIRWISE_MAX {
                                    let known: Vec<(usize, usize)> =
                                        set.pairs.keys().copied().collect();
                                    let all_decided = self.race_pairs(
                                        &insts,
                                        &inst_exprs,
                                        &base,
                                        &left,
                                        rel,
                                        set,
                                    );
                                    let found: Vec<(usize, usize)> = set
                                        .pairs
                                        .keys()
                                        .filter(|k| !known.contains(k))
                                        .copied()
                                        .collect();
                                    blocked.extend(found);
                                    // Every pair decided: only the same-value
                                    // pass below is left. Else a pair did not
                                    // replay: the grouped rounds decide the
                                    // rest, as without the pairwise pass.
                                    if all_decided {
                                        break;
                                    }
                                }
                            }
                        }
                        None if !config.witness && skip.is_none() => want_witness = true,
                        None => {
                            let tries = retries.entry((p, q)).or_insert(0);
                            *tries += 1;
                            if *tries >= 3 {
                                set.unconfirmed.push((p.min(q), p.max(q), rel));
                                if super::smt::switched_to_bitvectors(&base, &self.env) {
                                    set.unconfirmed_in_bitvectors.insert((p.min(q), p.max(q)));
                                }
                                blocked.push((p.min(q), p.max(q)));
                            } else {
                                // Ask for a different witness of the same pair.
                                base.push(exclude_model(&values));
                            }
                        }
                    }
                }
            }
        }
        // Every pair decided without the solver: each one left is disjoint
        // or excluded as a race already, so no pair writes one value.
        if decided_without_solver {
            return;
        }
        let Some((at, same)) = same_value else {
            return;
        };
        base[at] = same;
        for _round in 0..16 {
            if self.cancelled() {
                return;
            }
            let config = SolverConfig {
                witness: true,
                ..self.config
            };
            exclude(&mut base, &blocked[excluded..]);
            excluded = blocked.len();
            let QueryOutcome::Sat(values) = self.solve_concrete_first(&base, config) else {
                return;
            };
            let Some(((p, q), hit)) = self.replay_chosen(&insts, &inst_exprs, rel, &values, None)
            else {
                return;
            };
            if let Some(mut hit) = hit {
                hit.reproducible = true;
                set.benign.entry((p.min(q), p.max(q))).or_insert(hit);
            }
            // A same-value pair whose witness does not replay is no
            // finding: whatever it is, it is not a data race.
            blocked.push((p.min(q), p.max(q)));
        }
    }

    /// Records a confirmed racing pair. A definite one (nothing the model
    /// leaves undecided in its two accesses, see `race_findings`) makes
    /// the kernel racy whatever the rest of its pairs answer: from the
    /// first, the race search has a short allowance left (`budget`).
    fn record_race(&self, set: &mut RaceSet, key: (usize, usize), hit: RaceHit) {
        let (a, b) = (self.accesses[&hit.first], self.accesses[&hit.second]);
        let modelled: Vec<String> = self
            .modelled_last_blocks()
            .iter()
            .map(|lb| lb.counter.clone())
            .collect();
        let pinned = super::undecided::pinned_unseen(self.kernel);
        if super::undecided::undecided_origins(a, b, &modelled, &pinned).is_empty() {
            if let Some(budget) = self.config.budget {
                budget.race_found();
            }
        }
        set.pairs.entry(key).or_insert(hit);
    }

    /// The instance pair a group query's model chose (its two selectors),
    /// as the pair of accesses, and that pair's witness replayed
    /// ([`Self::confirm_race`]). `None` when the model names no pair.
    fn replay_chosen(
        &self,
        insts: &[&Instance],
        inst_exprs: &[Vec<(Expr, Expr)>],
        rel: Relation,
        values: &[(String, i64)],
        skip: Option<usize>,
    ) -> Option<((usize, usize), Option<RaceHit>)> {
        let get = |n: &str| values.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
        let (i, j) = (get(&symbols::selector(1))?, get(&symbols::selector(2))?);
        let (i, j) = (i as usize, j as usize);
        let (pi, qj) = (insts.get(i)?, insts.get(j)?);
        let hit = self.confirm_race(
            pi,
            qj,
            rel,
            values,
            &inst_exprs[i][0],
            &inst_exprs[j][1],
            skip,
        );
        Some(((pi.access, qj.access), hit))
    }

    /// Whether two distinct threads may write one cell through the plain
    /// writes of `insts`: false only when the exact per-thread rule proves
    /// every pair of them disjoint (two threads of one block, single
    /// cells). Without such a collision there is no same-value pair, so the
    /// same-value split of the queries and its last query (one more query
    /// per barrier interval) are not needed.
    pub(super) fn writes_may_collide(&self, insts: &[&Instance], rel: Relation) -> bool {
        let writes: Vec<&Access> = insts
            .iter()
            .map(|i| self.accesses[&i.access])
            .filter(|a| a.kind == AccessKind::Write && a.value.is_some())
            .collect();
        if writes.is_empty() {
            return false;
        }
        rel.cross_block()
            || writes.iter().any(|a| {
                writes.iter().any(|b| {
                    !(a.width <= 1
                        && b.width <= 1
                        && self.pair_disjoint_per_thread(&a.index, &b.index))
                })
            })
    }

    /// Over `insts`, (the two chosen accesses are not both writes of
    /// provably equal values, they are): each thread's written value is
    /// `written'1`/`written'2` when its chosen access is a plain write whose
    /// value the model has. Equal means equal on the machine
    /// (`machine_values`): the same expression of shared inputs, or equal
    /// in the model with every intermediate value exact. `None` when no
    /// instance has a value.
    pub(super) fn written_values(
        &self,
        insts: &[&Instance],
        rel: Relation,
    ) -> Option<(Expr, Expr)> {
        let mut defs = Vec::new();
        let mut opaque = false;
        let mut known = [Expr::fals(), Expr::fals()];
        let mut exact = [Expr::fals(), Expr::fals()];
        // Each thread's instantiated value, by instance.
        let mut values: [Vec<(usize, Expr)>; 2] = [Vec::new(), Vec::new()];
        for (i, inst) in insts.iter().enumerate() {
            let a = self.accesses[&inst.access];
            let Some(v) = a.value.as_ref().filter(|_| a.kind == AccessKind::Write) else {
                continue;
            };
            for t in [1u8, 2] {
                let chosen = Expr::eq(sel(t), Expr::Const(i as i64));
                let value = self.instantiate(v, t, rel, &inst.subst, false);
                let k = &mut known[t as usize - 1];
                *k = Expr::or(k.clone(), chosen.clone());
                values[t as usize - 1].push((i, value.clone()));
                // A value the model cannot show equal on the machine
                // (`machine_values`: none of its range claims) is equal to
                // the other thread's only as one computation of equal
                // inputs (below), which needs no value: it stays opaque,
                // its slot any value. So does one only 32-bit vectors
                // decide (bits packed into a word, `(r << 24) | (g << 16)
                // | ...`), whose range claim is all it loses. Their
                // arithmetic (a DCT's shifted products, bitwise operations
                // that send the whole query to bit-vectors) cost Z3
                // millions of units, or a minute of one query, for a value
                // the race needs only to tell equal or not.
                let cond = super::machine_values::machine_exact(&value)
                    .filter(|_| self.env.bitvector || !super::smt::needs_bitvectors(&value));
                let Some(cond) = cond else {
                    opaque = true;
                    continue;
                };
                let slot = Expr::Var(Var::new(symbols::written_value(t), VarKind::Shared));
                defs.push(Expr::or(
                    Expr::not(chosen.clone()),
                    Expr::eq(slot, value.clone()),
                ));
                let x = &mut exact[t as usize - 1];
                *x = Expr::or(x.clone(), Expr::and(chosen, cond));
            }
        }
        if defs.is_empty() && !opaque {
            return None;
        }
        // Pairs of instances whose two threads' values are one expression.
        let mut by_value: HashMap<&Expr, Vec<usize>> = HashMap::new();
        for (i, v) in &values[0] {
            by_value.entry(v).or_default().push(*i);
        }
        let mut same_computation = Expr::fals();
        for (j, v) in &values[1] {
            for i in by_value.get(v).into_iter().flatten() {
                same_computation = Expr::or(
                    same_computation,
                    Expr::and(
                        Expr::eq(sel(1), Expr::Const(*i as i64)),
                        Expr::eq(sel(2), Expr::Const(*j as i64)),
                    ),
                );
            }
        }
        // Two instances of one write compute one expression: equal when
        // every input it mentions is equal for the two threads, which the
        // congruence facts may show of unknowns that are functions of equal
        // operands (`congruence`).
        let originals: Vec<(usize, &Expr)> = insts
            .iter()
            .enumerate()
            .filter_map(|(i, inst)| {
                let a = self.accesses[&inst.access];
                a.value
                    .as_ref()
                    .filter(|_| a.kind == AccessKind::Write)
                    .map(|v| (i, v))
            })
            .collect();
        let mut one_computation = Expr::fals();
        for &(i, v) in &originals {
            for &(j, _) in &originals {
                if insts[i].access == insts[j].access {
                    one_computation = Expr::or(
                        one_computation,
                        Expr::all([
                            Expr::eq(sel(1), Expr::Const(i as i64)),
                            Expr::eq(sel(2), Expr::Const(j as i64)),
                            self.same_inputs(v, insts, (i, j), rel),
                        ]),
                    );
                }
            }
        }
        if !one_computation.is_false() {
            defs.extend(self.congruence_facts(insts, &originals, rel));
        }
        let slot = |t: u8| Expr::Var(Var::new(symbols::written_value(t), VarKind::Shared));
        if opaque {
            // One computation of equal inputs is one value, opaque or not
            // (the only equality an opaque value has).
            defs.push(Expr::or(
                Expr::not(Expr::or(same_computation.clone(), one_computation.clone())),
                Expr::eq(slot(1), slot(2)),
            ));
        }
        let [exact1, exact2] = exact;
        let equal = Expr::all([
            known[0].clone(),
            known[1].clone(),
            Expr::eq(slot(1), slot(2)),
            Expr::or(
                Expr::or(same_computation, one_computation),
                Expr::and(exact1, exact2),
            ),
        ]);
        let defs = Expr::all(defs);
        Some((
            Expr::and(defs.clone(), Expr::not(equal.clone())),
            Expr::and(defs, equal),
        ))
    }

    /// The rest of a group that has a race, decided pair by pair: each
    /// candidate pair `(i, j)` is the grouped query with both selectors
    /// fixed, so the pairs' queries together ask exactly what the grouped
    /// rounds would (their disjunction is the grouped query), but each has
    /// two instances instead of all of them (a group of 40 neighbour reads:
    /// 39 rounds of 80 instantiated indices each, against 2). A pair's model
    /// that does not replay is asked again with a witness, then for a
    /// different model. `false` when some access pair is left with neither
    /// a replayed race nor an unsat answer (no witness replayed, or the
    /// solver could not decide): the caller's grouped rounds then decide
    /// the rest (what is unconfirmed or unknown) as they did before.
    fn race_pairs(
        &mut self,
        insts: &[&Instance],
        inst_exprs: &[Vec<(Expr, Expr)>],
        base: &[Expr],
        pairs: &[(usize, usize)],
        rel: Relation,
        set: &mut RaceSet,
    ) -> bool {
        // Access pairs one of whose instance pairs did not replay or was
        // not decided: fine if another instance pair of them replays.
        let mut failed: Vec<(usize, usize)> = Vec::new();
        for &(i, j) in pairs {
            let (p, q) = (insts[i].access, insts[j].access);
            let key = (p.min(q), p.max(q));
            if set.pairs.contains_key(&key) {
                continue;
            }
            let mut query = base.to_vec();
            query.push(Expr::eq(sel(1), Expr::Const(i as i64)));
            query.push(Expr::eq(sel(2), Expr::Const(j as i64)));
            let mut decided = false;
            // Satisfiability first, then up to three reproducible
            // witnesses, each excluding the one before.
            for attempt in 0..4 {
                if self.cancelled() {
                    return true;
                }
                let config = SolverConfig {
                    witness: attempt > 0,
                    ..self.config
                };
                match self.solve_concrete_first(&query, config) {
                    QueryOutcome::Unsat => {
                        decided = true;
                        break;
                    }
                    QueryOutcome::Unknown(_) => break,
                    QueryOutcome::Sat(values) => {
                        let hit = self.confirm_race(
                            insts[i],
                            insts[j],
                            rel,
                            &values,
                            &inst_exprs[i][0],
                            &inst_exprs[j][1],
                            None,
                        );
                        if let Some(mut hit) = hit {
                            hit.reproducible = config.witness;
                            self.record_race(set, key, hit);
                            decided = true;
                            break;
                        }
                        if attempt > 0 {
                            query.push(exclude_model(&values));
                        }
                    }
                }
            }
            if !decided && !failed.contains(&key) {
                failed.push(key);
            }
        }
        failed.iter().all(|key| set.pairs.contains_key(key))
    }

    /// Whether no pair of `insts` is left for the solver: every
    /// conflicting pair is already a race (`blocked`) or exactly disjoint
    /// (distinct threads of one block never meet through the two indices).
    fn every_pair_decided(
        &self,
        insts: &[&Instance],
        inst_exprs: &[Vec<(Expr, Expr)>],
        blocked: &[(usize, usize)],
        rel: Relation,
    ) -> bool {
        if rel.cross_block() {
            return false;
        }
        let blocked: HashSet<&(usize, usize)> = blocked.iter().collect();
        let access = |i: usize| self.accesses[&insts[i].access];
        // Writes against everything: only pairs with a write conflict.
        (0..insts.len())
            .filter(|&i| access(i).kind.writes())
            .all(|i| {
                (0..insts.len()).all(|j| {
                    let (a, b) = (access(i), access(j));
                    let pair = (a.id.min(b.id), a.id.max(b.id));
                    // The exact rules compare single cells, not ranges.
                    let cells =
                        a.width <= 1 && b.width <= 1 && !self.kernel.arrays[a.array].byte_addressed;
                    (a.kind == AccessKind::Atomic && b.kind == AccessKind::Atomic)
                        || blocked.contains(&pair)
                        || (cells && self.pair_disjoint_per_thread(&a.index, &b.index))
                        // Both orders: thread 1 at either instance.
                        || (cells
                            && self.interval_pair_disjoint(inst_exprs, i, j, rel)
                            && self.interval_pair_disjoint(inst_exprs, j, i, rel))
                })
            })
    }

    pub(super) fn lookup_for<'v>(
        &self,
        values: &'v [(String, i64)],
        t: u8,
        rel: Relation,
    ) -> impl Fn(&Var) -> Option<i64> + 'v {
        let env = self.env.clone();
        move |v: &Var| {
            let get = |n: &str| values.iter().find(|(k, _)| k == n).map(|(_, x)| *x);
            let per = get(&symbols::for_thread(&v.name, t));
            let shared = get(&v.name);
            match v.kind {
                VarKind::ThreadIdx(_) => per.or(Some(0)),
                VarKind::BlockIdx(_) => {
                    if rel.cross_block() {
                        per.or(Some(0))
                    } else {
                        shared.or(per).or(Some(0))
                    }
                }
                VarKind::BlockDim(_) | VarKind::GridDim(_) => {
                    shared.or(env.fixed(v.kind)).or(Some(1))
                }
                // A per-iteration value: the model names it by symbolic
                // iteration, which a concrete run cannot match.
                VarKind::Unknown { .. } if symbols::is_iteration_tagged(&v.name) => per.or(shared),
                _ => per.or(shared).or(Some(0)),
            }
        }
    }

    /// Replays a race witness; returns the confirmed race.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn confirm_race(
        &self,
        pi: &Instance,
        qj: &Instance,
        rel: Relation,
        values: &[(String, i64)],
        p_exprs: &(Expr, Expr),
        q_exprs: &(Expr, Expr),
        skip: Option<usize>,
    ) -> Option<RaceHit> {
        let (p, q) = (pi.access, qj.access);
        let l1 = self.lookup_for(values, 1, rel);
        let l2 = self.lookup_for(values, 2, rel);
        // The tickets and flag results each thread's replay draws, for the
        // realisability check below.
        let drawn: [RefCell<Vec<super::realisable::Draw>>; 2] = Default::default();
        let recording = |t: usize, lookup: &dyn Fn(&Var) -> Option<i64>, v: &Var| {
            let x = lookup(v);
            if let Some(x) = x {
                if self.constrained_draw(&v.name, rel) {
                    drawn[t].borrow_mut().push((v.name.to_string(), x));
                }
            }
            x
        };
        let r1 = |v: &Var| recording(0, &l1, v);
        let r2 = |v: &Var| recording(1, &l2, v);
        let only = [p, q];
        let mut skip_list = self.divergent.clone();
        skip_list.extend(skip);
        let run = |lookup: &dyn Fn(&Var) -> Option<i64>| {
            Interpreter {
                lookup,
                bitvector: self.env.bitvector,
                only: &only,
                max_steps: 200_000,
                skip: &skip_list,
            }
            .run_outlined(self.kernel, &self.outline)
        };
        let t1 = run(&r1);
        let t2 = run(&r2);
        let e = rel.epoch();
        let lockstep = self.options.warp_sync && rel == Relation::SameWarp;
        // The second thread's events of `q` by (index, epoch): a loop that
        // runs to the step budget yields hundreds of thousands of events, so
        // no pairwise scan.
        let mut by_slot: HashMap<(i64, u32), HashSet<[u32; 3]>> = HashMap::new();
        // A wide access (bytes of a byte-addressed array) fills every cell
        // it covers.
        for b in t2.events.iter().filter(|x| x.access == q) {
            for cell in b.index..b.index.saturating_add(b.width) {
                by_slot
                    .entry((cell, b.epochs[e]))
                    .or_default()
                    .insert(b.epochs);
            }
        }
        let found = t1.events.iter().filter(|x| x.access == p).find_map(|a| {
            (a.index..a.index.saturating_add(a.width)).find(|cell| {
                by_slot
                    .get(&(*cell, a.epochs[e]))
                    .is_some_and(|bs| !lockstep || bs.contains(&a.epochs))
            })
        });
        // Instance-level replay: the two accesses happen and collide under
        // the witness (used when the whole run exceeds the step budget).
        let all_vals = |name: &str| values.iter().find(|(k, _)| k == name).map(|(_, v)| *v);
        let direct = |lookup: &dyn Fn(&Var) -> Option<i64>, e: &Expr| {
            eval_expr(e, lookup, self.env.bitvector)
        };
        let model_lookup = |v: &Var| all_vals(&v.name).or_else(|| l1(v));
        let instance_ok = direct(&model_lookup, &p_exprs.0)
            .map(|g| g != 0)
            .unwrap_or(false)
            && direct(&model_lookup, &q_exprs.0)
                .map(|g| g != 0)
                .unwrap_or(false)
            && overlap(
                direct(&model_lookup, &p_exprs.1),
                self.accesses[&p].width,
                direct(&model_lookup, &q_exprs.1),
                self.accesses[&q].width,
            )
            .is_some();
        let index = match found {
            Some(i) => i,
            None if (!t1.complete || !t2.complete) && instance_ok => overlap(
                direct(&model_lookup, &p_exprs.1),
                self.accesses[&p].width,
                direct(&model_lookup, &q_exprs.1),
                self.accesses[&q].width,
            )
            .unwrap_or(0),
            None => return None,
        };
        let witness = self.witness(values, rel, index);
        if !super::witness::is_launchable(&witness, rel) {
            return None;
        }
        // Draws the model does not name are read as 0 by both threads'
        // replays alike; only those it gave are the witness's.
        let named = |t: u8, list: &[super::realisable::Draw]| -> Vec<super::realisable::Draw> {
            list.iter()
                .filter(|(n, _)| {
                    values
                        .iter()
                        .any(|(k, _)| *k == symbols::for_thread(n, t) || k == n)
                })
                .cloned()
                .collect()
        };
        let d1 = named(1, &drawn[0].borrow());
        let d2 = named(2, &drawn[1].borrow());
        if self.unrealisable([&d1, &d2], [&l1, &l2]).is_some() {
            return None;
        }
        let loop_values = [
            self.loop_values(p, pi, 1, rel, &model_lookup),
            self.loop_values(q, qj, 2, rel, &model_lookup),
        ];
        Some(RaceHit {
            first: p,
            second: q,
            relation: rel,
            witness,
            index,
            loop_values,
            reproducible: false,
            instances: Box::new((pi.clone(), qj.clone())),
        })
    }

    /// `hit` solved again as a query of its two instances alone, with a
    /// reproducible witness (fresh Z3 context, small values).
    pub(super) fn pair_witness(&mut self, hit: &RaceHit) -> Option<RaceHit> {
        let group = pair_group(hit);
        let (
            GroupQuery {
                insts,
                base,
                inst_exprs,
            },
            (i, j),
        ) = self.pair_query(&group, hit)?;
        let config = SolverConfig {
            witness: true,
            ..self.config
        };
        let QueryOutcome::Sat(values) = self.solve_concrete_first(&base, config) else {
            return None;
        };
        let mut confirmed = self.confirm_race(
            insts[i],
            insts[j],
            hit.relation,
            &values,
            &inst_exprs[i][0],
            &inst_exprs[j][1],
            None,
        )?;
        confirmed.reproducible = true;
        Some(confirmed)
    }

    /// The race query of `hit`'s two instances alone (`group`, from
    /// [`pair_group`]), its selectors fixed to them: satisfiable exactly
    /// when this pair of instances can race under `hit`'s relation.
    /// Returns the query and the selectors' values.
    pub(super) fn pair_query<'g>(
        &self,
        group: &'g [Instance],
        hit: &RaceHit,
    ) -> Option<(GroupQuery<'g>, (usize, usize))> {
        let mut query = self.group_query(group, hit.relation, None)?;
        let (i, j) = if group.len() == 1 { (0, 0) } else { (0, 1) };
        if query.insts.len() != group.len() {
            return None;
        }
        query.base.push(Expr::eq(sel(1), Expr::Const(i as i64)));
        query.base.push(Expr::eq(sel(2), Expr::Const(j as i64)));
        Some((query, (i, j)))
    }
}

/// The instances of `hit` as a group of their own: one instance when both
/// threads run the same one.
pub(super) fn pair_group(hit: &RaceHit) -> Vec<Instance> {
    let (pi, qj) = &*hit.instances;
    if pi == qj {
        vec![pi.clone()]
    } else {
        vec![pi.clone(), qj.clone()]
    }
}

/// Past the first racing pair of a group, a group with at most this many
/// undecided candidate pairs is decided pair by pair (`race_pairs`); a
/// larger one keeps asking the grouped query, one racing pair a round.
const PAIRWISE_MAX: usize = 128;

fn kinds_of(v: &KernelContext, insts: &[&Instance]) -> Vec<AccessKind> {
    insts.iter().map(|i| v.accesses[&i.access].kind).collect()
}

/// The selector pairs `(i, j)`, `i <= j`, the grouped query could still
/// answer: at least one access writes, not both atomic, and the two
/// accesses not a pair already `blocked` (by access ids).
fn candidate_pairs(
    insts: &[&Instance],
    kinds: &[AccessKind],
    blocked: &[(usize, usize)],
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in 0..insts.len() {
        for j in i..insts.len() {
            let (a, b) = (insts[i].access, insts[j].access);
            let conflict = (kinds[i].writes() || kinds[j].writes())
                && !(kinds[i] == AccessKind::Atomic && kinds[j] == AccessKind::Atomic);
            if conflict && !blocked.contains(&(a.min(b), a.max(b))) {
                out.push((i, j));
            }
        }
    }
    out
}

/// A grouped race query and what its selectors refer to.
pub(super) struct GroupQuery<'g> {
    pub(super) insts: Vec<&'g Instance>,
    pub(super) base: Vec<Expr>,
    /// Per instance, per thread: the instantiated guard and index.
    pub(super) inst_exprs: Vec<Vec<(Expr, Expr)>>,
}

/// The selector of thread `t`'s access in a grouped race query.
pub(super) fn sel(t: u8) -> Expr {
    Expr::Var(Var::new(symbols::selector(t), VarKind::Shared))
}

/// The first cell two accesses both cover: `[a, a + wa)` and `[b, b + wb)`.
fn overlap(a: Option<i64>, wa: i64, b: Option<i64>, wb: i64) -> Option<i64> {
    let (a, b) = (a?, b?);
    let start = a.max(b);
    (start < a.saturating_add(wa) && start < b.saturating_add(wb)).then_some(start)
}

/// The pairs of distinct draws (atomic results) among each thread's
/// variables: thread 1's against thread 2's, and two of one thread's own
/// (`a = atomicAdd(c, 1); b = atomicAdd(c, 1);` are two draws of one
/// thread; at most one of a thread's two updates of a one-shot flag wins).
/// A name with an iteration tag stands for one draw per iteration, so a
/// thread's tagged names are paired only across threads.
fn draw_pairs(per_thread: &[Vec<Var>; 2]) -> Vec<(&Var, &Var)> {
    let mut out = Vec::new();
    for a in &per_thread[0] {
        for b in &per_thread[1] {
            if a != b {
                out.push((a, b));
            }
        }
    }
    for own in per_thread {
        for (i, a) in own.iter().enumerate() {
            for b in &own[i + 1..] {
                let tagged =
                    symbols::is_iteration_tagged(&a.name) || symbols::is_iteration_tagged(&b.name);
                if !tagged {
                    out.push((a, b));
                }
            }
        }
    }
    out
}

/// The variables that `wanted` picks in the guards and indices of each
/// thread's instances (thread 1's, thread 2's), each once, in order of
/// appearance.
fn vars_per_thread(
    inst_exprs: &[Vec<(Expr, Expr)>],
    wanted: impl Fn(&Var) -> bool,
) -> [Vec<Var>; 2] {
    let mut per_thread: [Vec<Var>; 2] = [Vec::new(), Vec::new()];
    for per in inst_exprs {
        for (t, (g, x)) in per.iter().enumerate().take(2) {
            for e in [g, x] {
                e.for_each_var(&mut |v| {
                    if wanted(v) && !per_thread[t].contains(v) {
                        per_thread[t].push(v.clone());
                    }
                });
            }
        }
    }
    per_thread
}

#[cfg(test)]
mod tests {
    use crate::options::Options;
    use crate::report::{FindingKind, KernelStatus};

    /// A write, then reads of neighbours and of the thread's own element
    /// with no barrier, at a symbolic launch: after the grouped query finds
    /// the first racing pair, the rest are decided pair by pair, and they
    /// must be exactly the neighbour reads (never the thread's own read).
    /// One block (the kernel never reads `blockIdx`: two blocks would
    /// also race on `a[t]`).
    #[test]
    fn every_racing_pair_of_a_group_and_only_those() {
        let mut src = String::from(
            "__global__ void k(float *a) {\n    __shared__ float s[256];\n    int t = threadIdx.x;\n    float acc = 0.0f;\n    s[t] = a[t];\n",
        );
        let mut racing_lines = Vec::new();
        for j in 1..=6 {
            racing_lines.push(src.lines().count() as u32);
            src.push_str(&format!("    acc += s[(t + {j}) % 256];\n"));
            src.push_str("    acc += s[t];\n");
        }
        src.push_str("    a[t] = acc;\n}\n");
        let options = Options {
            grid_dim: Some([1, 1, 1]),
            ..Options::default()
        };
        let report = crate::analyze_source(&src, &options);
        assert_eq!(report.kernels[0].status, KernelStatus::Racy);
        let races: Vec<_> = report
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::DataRace)
            .collect();
        assert_eq!(races.len(), 1, "one finding for one missing barrier");
        let mut lines: Vec<u32> = races[0]
            .pairs
            .iter()
            .flat_map(|p| [p.first.start.line, p.second.start.line])
            .filter(|&l| l != 4)
            .collect();
        lines.sort_unstable();
        assert_eq!(lines, racing_lines, "{:?}", races[0].pairs);
    }
}
