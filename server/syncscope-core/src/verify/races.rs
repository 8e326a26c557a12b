//! Races: per barrier interval and array, one grouped two-thread query with
//! selector variables over every access instance; each satisfiable answer is
//! a racing pair, confirmed on the concrete interpreter, blocked, and asked
//! again (every race in one run). Owns the race findings' messages; must not
//! decide divergence or redundancy.

use super::engine::*;
use super::intervals::{intervals, Instance, Level};
use super::replay::Interpreter;
use super::smt::SolverConfig;
use super::witness::exclude_model;
use crate::cache::QueryOutcome;
use crate::model::*;
use crate::report::*;
use crate::symbols;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

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
    /// With a barrier skipped (the redundancy check): some race query was
    /// satisfiable, so the barrier is needed. The search stops there: no
    /// witness is confirmed or reported for a barrier that is kept.
    pub needed: bool,
    /// Pairs that collide only writing the same value (`benign-race`);
    /// empty with `--strict-benign`, where they are `pairs`.
    pub benign: BTreeMap<(usize, usize), RaceHit>,
}

impl<'k> KernelVerifier<'k> {
    /// Every racing pair of accesses. With `skip`, the races that removing
    /// that barrier would create: only pairs of instances it separated.
    pub(crate) fn find_races(&mut self, skip: Option<usize>) -> RaceSet {
        let mut set = RaceSet::default();
        for rel in self.relations() {
            let level = rel.level();
            if let Some(b) = skip {
                let kind = self
                    .kernel
                    .barriers()
                    .iter()
                    .find(|x| x.id == b)
                    .map(|x| x.kind);
                if let Some(kind) = kind {
                    if !level.splits(kind) {
                        continue;
                    }
                }
            }
            let kernel = self.kernel;
            // Arrays no barrier matters for need no interval at all.
            let mut arrays: Vec<ArrayId> = kernel
                .accesses()
                .iter()
                .filter(|a| {
                    !(rel.cross_block() && kernel.arrays[a.array].space == MemorySpace::Shared)
                })
                .map(|a| a.array)
                .collect();
            arrays.sort_unstable();
            arrays.dedup();
            let mut dependent = Vec::new();
            for array in arrays {
                if !self.barrier_independent(array, rel) {
                    dependent.push(array);
                }
            }
            if dependent.is_empty() {
                continue;
            }
            let ivs = intervals(kernel, level, skip, &mut |facts| self.may_hold(facts));
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
                let body = Expr::and(g.clone(), Expr::eq(idx.clone(), x.clone()));
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
        let mut per_thread: [Vec<Var>; 2] = [Vec::new(), Vec::new()];
        for per in inst_exprs {
            for (t, (g, x)) in per.iter().enumerate().take(2) {
                for e in [g, x] {
                    e.for_each_var(&mut |v| {
                        let counted = symbols::ticket_counter(&v.name)
                            .is_some_and(|c| counters.iter().any(|k| *k == c));
                        if counted && !per_thread[t].contains(v) {
                            per_thread[t].push(v.clone());
                        }
                    });
                }
            }
        }
        let mut out = Vec::new();
        for a in &per_thread[0] {
            for b in &per_thread[1] {
                if a != b && symbols::ticket_counter(&a.name) == symbols::ticket_counter(&b.name) {
                    out.push(Expr::bin(
                        BinOp::Ne,
                        Expr::Var(a.clone()),
                        Expr::Var(b.clone()),
                    ));
                }
            }
        }
        out
    }

    /// Whether the ticket counter `array:index` is in shared memory.
    fn shared_counter(&self, counter: &str) -> bool {
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
        if skip.is_none() && !self.options.strict_benign {
            if let Some((differ, same)) = self.written_values(&insts, rel) {
                base.push(differ);
                same_value = Some((base.len() - 1, same));
            }
        }
        // Block pairs already found in other intervals: one report per pair.
        let mut blocked: Vec<(usize, usize)> = Vec::new();
        let block =
            |base: &mut Vec<Expr>, p: usize, q: usize, blocked: &mut Vec<(usize, usize)>| {
                blocked.push((p.min(q), p.max(q)));
                for (i, a) in insts.iter().enumerate() {
                    for (j, b) in insts.iter().enumerate().skip(i) {
                        let pair = (a.access.min(b.access), a.access.max(b.access));
                        if pair == (p.min(q), p.max(q)) {
                            base.push(Expr::not(Expr::and(
                                Expr::eq(sel(1), Expr::Const(i as i64)),
                                Expr::eq(sel(2), Expr::Const(j as i64)),
                            )));
                        }
                    }
                }
            };
        let failed_here = set
            .unconfirmed
            .iter()
            .filter(|(_, _, r)| *r == rel)
            .map(|(p, q, _)| (*p, *q));
        let done: Vec<(usize, usize)> = set.pairs.keys().copied().chain(failed_here).collect();
        for (p, q) in done {
            if insts.iter().any(|i| i.access == p) && insts.iter().any(|i| i.access == q) {
                block(&mut base, p, q, &mut blocked);
            }
        }
        let mut retries: HashMap<(usize, usize), usize> = HashMap::new();
        // Solve for a reproducible witness until one pair is confirmed.
        let mut want_witness = true;
        for _round in 0..64 {
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
                    let get = |n: &str| values.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
                    let (Some(i), Some(j)) =
                        (get(&symbols::selector(1)), get(&symbols::selector(2)))
                    else {
                        return;
                    };
                    let (i, j) = (i as usize, j as usize);
                    let (Some(pi), Some(qj)) = (insts.get(i), insts.get(j)) else {
                        return;
                    };
                    let (p, q) = (pi.access, qj.access);
                    match self.confirm_race(
                        pi,
                        qj,
                        rel,
                        &values,
                        &inst_exprs[i][0],
                        &inst_exprs[j][1],
                        skip,
                    ) {
                        Some(mut hit) => {
                            hit.reproducible = config.witness;
                            want_witness = false;
                            set.pairs.entry((p.min(q), p.max(q))).or_insert(hit);
                            block(&mut base, p, q, &mut blocked);
                        }
                        None if !config.witness && skip.is_none() => want_witness = true,
                        None => {
                            let tries = retries.entry((p, q)).or_insert(0);
                            *tries += 1;
                            if *tries >= 3 {
                                set.unconfirmed.push((p.min(q), p.max(q), rel));
                                block(&mut base, p, q, &mut blocked);
                            } else {
                                // Ask for a different witness of the same pair.
                                base.push(exclude_model(&values));
                            }
                        }
                    }
                }
            }
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
            let QueryOutcome::Sat(values) = self.solve_concrete_first(&base, config) else {
                return;
            };
            let get = |n: &str| values.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
            let (Some(i), Some(j)) = (get(&symbols::selector(1)), get(&symbols::selector(2)))
            else {
                return;
            };
            let (Some(pi), Some(qj)) = (insts.get(i as usize), insts.get(j as usize)) else {
                return;
            };
            let (p, q) = (pi.access, qj.access);
            let (i, j) = (i as usize, j as usize);
            if let Some(mut hit) = self.confirm_race(
                pi,
                qj,
                rel,
                &values,
                &inst_exprs[i][0],
                &inst_exprs[j][1],
                None,
            ) {
                hit.reproducible = true;
                set.benign.entry((p.min(q), p.max(q))).or_insert(hit);
            }
            // A same-value pair whose witness does not replay is no
            // finding: whatever it is, it is not a data race.
            block(&mut base, p, q, &mut blocked);
        }
    }

    /// Over `insts`, (the two chosen accesses are not both writes of
    /// provably equal values, they are): each thread's written value is
    /// `written'1`/`written'2` when its chosen access is a plain write whose
    /// value the model has. `None` when no instance has one.
    fn written_values(&self, insts: &[&Instance], rel: Relation) -> Option<(Expr, Expr)> {
        let mut defs = Vec::new();
        let mut known = [Expr::fals(), Expr::fals()];
        for (i, inst) in insts.iter().enumerate() {
            let a = self.accesses[&inst.access];
            let Some(v) = a.value.as_ref().filter(|_| a.kind == AccessKind::Write) else {
                continue;
            };
            for t in [1u8, 2] {
                let chosen = Expr::eq(sel(t), Expr::Const(i as i64));
                let value = self.instantiate(v, t, rel, &inst.subst, false);
                let slot = Expr::Var(Var::new(symbols::written_value(t), VarKind::Shared));
                defs.push(Expr::or(Expr::not(chosen.clone()), Expr::eq(slot, value)));
                let k = &mut known[t as usize - 1];
                *k = Expr::or(k.clone(), chosen);
            }
        }
        if defs.is_empty() {
            return None;
        }
        let slot = |t: u8| Expr::Var(Var::new(symbols::written_value(t), VarKind::Shared));
        let equal = Expr::all([
            known[0].clone(),
            known[1].clone(),
            Expr::eq(slot(1), slot(2)),
        ]);
        let defs = Expr::all(defs);
        Some((
            Expr::and(defs.clone(), Expr::not(equal.clone())),
            Expr::and(defs, equal),
        ))
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
            .run(self.kernel)
        };
        let t1 = run(&l1);
        let t2 = run(&l2);
        let e = rel.epoch();
        let lockstep = self.options.warp_sync && rel == Relation::SameWarp;
        // The second thread's events of `q` by (index, epoch): a loop that
        // runs to the step budget yields hundreds of thousands of events, so
        // no pairwise scan.
        let mut by_slot: HashMap<(i64, u32), HashSet<[u32; 3]>> = HashMap::new();
        for b in t2.events.iter().filter(|x| x.access == q) {
            by_slot
                .entry((b.index, b.epochs[e]))
                .or_default()
                .insert(b.epochs);
        }
        let found = t1
            .events
            .iter()
            .filter(|x| x.access == p)
            .find(|a| {
                by_slot
                    .get(&(a.index, a.epochs[e]))
                    .is_some_and(|bs| !lockstep || bs.contains(&a.epochs))
            })
            .map(|a| a.index);
        // Instance-level replay: the two accesses happen and collide under
        // the witness (used when the whole run exceeds the step budget).
        let all_vals = |name: &str| values.iter().find(|(k, _)| k == name).map(|(_, v)| *v);
        let direct = |lookup: &dyn Fn(&Var) -> Option<i64>, e: &Expr| {
            Interpreter {
                lookup,
                bitvector: self.env.bitvector,
                only: &[],
                max_steps: 1,
                skip: &[],
            }
            .eval_with(e)
        };
        let model_lookup = |v: &Var| all_vals(&v.name).or_else(|| l1(v));
        let instance_ok = direct(&model_lookup, &p_exprs.0)
            .map(|g| g != 0)
            .unwrap_or(false)
            && direct(&model_lookup, &q_exprs.0)
                .map(|g| g != 0)
                .unwrap_or(false)
            && direct(&model_lookup, &p_exprs.1).is_some()
            && direct(&model_lookup, &p_exprs.1) == direct(&model_lookup, &q_exprs.1);
        let index = match found {
            Some(i) => i,
            None if (!t1.complete || !t2.complete) && instance_ok => {
                direct(&model_lookup, &p_exprs.1).unwrap_or(0)
            }
            None => return None,
        };
        let witness = self.witness(values, rel, index);
        if !super::witness::is_launchable(&witness, rel) {
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
    fn pair_witness(&mut self, hit: &RaceHit) -> Option<RaceHit> {
        let (pi, qj) = &*hit.instances;
        let same = pi == qj;
        let group: Vec<Instance> = if same {
            vec![pi.clone()]
        } else {
            vec![pi.clone(), qj.clone()]
        };
        let GroupQuery {
            insts,
            mut base,
            inst_exprs,
        } = self.group_query(&group, hit.relation, None)?;
        let (i, j) = if same { (0, 0) } else { (0, 1) };
        if insts.len() != group.len() {
            return None;
        }
        base.push(Expr::eq(sel(1), Expr::Const(i)));
        base.push(Expr::eq(sel(2), Expr::Const(j)));
        let config = SolverConfig {
            witness: true,
            ..self.config
        };
        let QueryOutcome::Sat(values) = self.solve_concrete_first(&base, config) else {
            return None;
        };
        let (i, j) = (i as usize, j as usize);
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

    /// A pair of writes that collide only with equal values: the race
    /// finding's text and witness, as a `benign-race` hint.
    pub(super) fn benign_race_finding(&self, hit: &RaceHit) -> Finding {
        let mut f = self.race_finding(hit);
        f.kind = FindingKind::BenignRace;
        f.severity = FindingKind::BenignRace.severity();
        let rest = f.message.strip_prefix("data race").unwrap_or(&f.message);
        f.message = format!(
            "benign race{rest}; both write the same value (a data race with --strict-benign)"
        );
        f
    }

    pub(super) fn race_finding(&self, hit: &RaceHit) -> Finding {
        let k = self.kernel;
        let (mut a, mut b) = (self.accesses[&hit.first], self.accesses[&hit.second]);
        let (mut ta, mut tb) = (&hit.witness.threads[0], &hit.witness.threads[1]);
        let (mut la, mut lb) = (&hit.loop_values[0], &hit.loop_values[1]);
        // The write is the primary location; a read the related one.
        if a.kind == AccessKind::Read && b.kind != AccessKind::Read {
            std::mem::swap(&mut a, &mut b);
            std::mem::swap(&mut ta, &mut tb);
            std::mem::swap(&mut la, &mut lb);
        }
        let arr = &k.arrays[a.array].name;
        let fmt_t = |t: &WitnessThread| {
            format!(
                "thread ({},{},{}) of block ({},{},{})",
                t.thread_idx[0],
                t.thread_idx[1],
                t.thread_idx[2],
                t.block_idx[0],
                t.block_idx[1],
                t.block_idx[2]
            )
        };
        let fmt_l = |l: &Vec<(String, i64)>| {
            if l.is_empty() {
                String::new()
            } else {
                let parts: Vec<String> = l.iter().map(|(n, v)| format!("{n} = {v}")).collect();
                format!(" [{}]", parts.join(", "))
            }
        };
        let verb_b = match b.kind {
            AccessKind::Read => "reads it",
            AccessKind::Write => "writes it",
            AccessKind::Atomic => "updates it atomically",
        };
        let message = format!(
            "data race on `{arr}[{}]`: {} {} `{}` (line {}){} while {} {} with `{}` (line {}){}",
            hit.index,
            fmt_t(ta),
            a.kind.verb(),
            a.text,
            a.span.start.line + 1,
            fmt_l(la),
            fmt_t(tb),
            verb_b,
            b.text,
            b.span.start.line + 1,
            fmt_l(lb),
        );
        let mut f = Finding::new(FindingKind::DataRace, Some(&k.name), a.span, message);
        f.related.push(Related {
            span: b.span,
            message: format!(
                "the other access: {} {} `{}`",
                fmt_t(tb),
                b.kind.verb(),
                b.text
            ),
        });
        let mut w = hit.witness.clone();
        if a.id != hit.first {
            w.threads.swap(0, 1);
        }
        for (n, v) in la.iter() {
            w.values.push((format!("{n} (thread 1)"), *v));
        }
        for (n, v) in lb.iter() {
            w.values.push((format!("{n} (thread 2)"), *v));
        }
        f.witness = Some(w);
        f
    }
}

impl KernelVerifier<'_> {
    /// The race findings of `hits`: the races one barrier would separate
    /// become one finding. Two pairs go together when threads of one block
    /// race (a block barrier orders them), their four accesses sit in the
    /// same loops, and every earlier access of the group ends before every
    /// later one starts, so a single point (before the first later access)
    /// lies between both accesses of every pair. Whether a barrier there
    /// does separate them is the quick-fix's check, not a claim made here.
    /// Each finding sits at its first racing access, lists every pair
    /// (`pairs`, and the other access of each in `related`) and carries the
    /// witness of one pair.
    pub(super) fn race_findings(&mut self, hits: &[&RaceHit]) -> Vec<Finding> {
        let ordered = |h: &RaceHit| {
            let (p, q) = (self.accesses[&h.first], self.accesses[&h.second]);
            if (q.span.start.offset, q.id) < (p.span.start.offset, p.id) {
                (q, p)
            } else {
                (p, q)
            }
        };
        let mut singles = Vec::new();
        let mut groupable: BTreeMap<(Relation, Vec<usize>), Vec<&RaceHit>> = BTreeMap::new();
        for h in hits {
            let (early, late) = ordered(h);
            if early.id != late.id
                && early.span.end.offset <= late.span.start.offset
                && h.relation.level() != Level::Grid
                && early.loops == late.loops
            {
                groupable
                    .entry((h.relation, early.loops.clone()))
                    .or_default()
                    .push(h);
            } else {
                singles.push(*h);
            }
        }
        let mut groups: Vec<Vec<&RaceHit>> = singles.into_iter().map(|h| vec![h]).collect();
        for (_, mut list) in groupable {
            // Interval stabbing: by the later access's start; a pair joins
            // the open group when its earlier access ends before that point.
            list.sort_by_key(|h| {
                let (e, l) = ordered(h);
                (l.span.start.offset, e.span.start.offset)
            });
            let mut point: Option<u32> = None;
            for h in list {
                let (early, late) = ordered(h);
                match (point, groups.last_mut()) {
                    (Some(p), Some(g)) if early.span.end.offset <= p => g.push(h),
                    _ => {
                        point = Some(late.span.start.offset);
                        groups.push(vec![h]);
                    }
                }
            }
        }
        let mut out: Vec<Finding> = groups.iter().map(|g| self.group_finding(g)).collect();
        out.sort_by_key(|f| (f.span.start.offset, f.span.end.offset));
        out
    }

    fn group_finding(&mut self, group: &[&RaceHit]) -> Finding {
        let pair_of = |h: &RaceHit| {
            let (p, q) = (self.accesses[&h.first], self.accesses[&h.second]);
            if (q.span.start.offset, q.id) < (p.span.start.offset, p.id) {
                (q, p)
            } else {
                (p, q)
            }
        };
        let mut pairs: Vec<(&Access, &Access)> = group.iter().map(|h| pair_of(h)).collect();
        pairs.sort_by_key(|(a, b)| (a.span.start.offset, b.span.start.offset, a.id, b.id));
        let first = pairs[0].0;
        let involves = |h: &&&RaceHit| h.first == first.id || h.second == first.id;
        // The witness: a pair of the first racing access, solved to be
        // reproducible (solved again alone if it was found without).
        let resolved;
        let witness_hit: &RaceHit = match group.iter().find(|h| involves(h) && h.reproducible) {
            Some(h) => h,
            None => {
                let h = *group.iter().find(involves).unwrap_or(&group[0]);
                resolved = self.pair_witness(h);
                resolved.as_ref().unwrap_or(h)
            }
        };
        let mut pairs: Vec<(Access, Access)> = pairs
            .iter()
            .map(|(a, b)| ((*a).clone(), (*b).clone()))
            .collect();
        // The witness's pair first (the message's example), then the rest
        // in program order.
        let ids = |a: usize, b: usize| (a.min(b), a.max(b));
        let shown = ids(witness_hit.first, witness_hit.second);
        if let Some(i) = pairs.iter().position(|(a, b)| ids(a.id, b.id) == shown) {
            let p = pairs.remove(i);
            pairs.insert(0, p);
        }
        self.shape_group(witness_hit, &pairs)
    }

    /// The finding of a group: `pairs` (the witness's first), `witness_hit`'s witness.
    fn shape_group(&self, witness_hit: &RaceHit, pairs: &[(Access, Access)]) -> Finding {
        let first = pairs
            .iter()
            .map(|(a, _)| a)
            .min_by_key(|a| (a.span.start.offset, a.id))
            .unwrap_or(&pairs[0].0);
        let mut f = self.race_finding(witness_hit);
        f.pairs = pairs
            .iter()
            .map(|(a, b)| RacingPair {
                first: a.span,
                first_text: a.text.clone(),
                second: b.span,
                second_text: b.text.clone(),
            })
            .collect();
        if pairs.len() == 1 {
            return f;
        }
        let arrays: BTreeSet<&str> = pairs
            .iter()
            .map(|(a, _)| self.kernel.arrays[a.array].name.as_str())
            .collect();
        let names: Vec<String> = arrays.iter().map(|n| format!("`{n}`")).collect();
        let last_line = pairs
            .iter()
            .map(|(_, b)| b.span.start.line + 1)
            .max()
            .unwrap_or(0);
        f.message = format!(
            "data race on {}: {} pairs of accesses race with no barrier between them (lines {}-{}); for example, {}",
            names.join(", "),
            pairs.len(),
            first.span.start.line + 1,
            last_line,
            f.message.trim_start_matches("data race on ")
        );
        f.span = first.span;
        f.related = pairs
            .iter()
            .map(|(other, at)| {
                // At the later access of each pair, naming the earlier one.
                Related {
                    span: at.span,
                    message: format!(
                        "`{}` (line {}) races with `{}` (line {})",
                        at.text,
                        at.span.start.line + 1,
                        other.text,
                        other.span.start.line + 1
                    ),
                }
            })
            .collect();
        f
    }
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
