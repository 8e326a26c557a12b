//! Per-kernel verification: two-thread queries for races (grouped per
//! interval and array, all racing pairs in one run by blocking each found
//! pair), barrier divergence, and redundant barriers; witnesses replayed on
//! the concrete interpreter before they are reported.

use super::intervals::{intervals, Instance, Level};
use super::replay::Interpreter;
use super::smt::{self, Counters, LaunchEnv, SolverConfig};
use crate::cache::{QueryCache, QueryOutcome};
use crate::model::*;
use crate::options::Options;
use crate::report::*;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// How the two threads of a query relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Relation {
    /// Two threads of one warp.
    SameWarp,
    /// Two threads of one block in different warps.
    OtherWarp,
    /// Any two threads of one block.
    SameBlock,
    /// Two threads of different blocks.
    CrossBlock,
    /// Any two threads of the grid.
    Any,
}

impl Relation {
    fn level(self) -> Level {
        match self {
            Relation::SameWarp => Level::Warp,
            Relation::OtherWarp | Relation::SameBlock => Level::Block,
            Relation::CrossBlock | Relation::Any => Level::Grid,
        }
    }
    fn cross_block(self) -> bool {
        matches!(self, Relation::CrossBlock | Relation::Any)
    }
    fn epoch(self) -> usize {
        match self.level() {
            Level::Warp => 0,
            Level::Block => 1,
            Level::Grid => 2,
        }
    }
}

/// A confirmed race between two accesses.
#[derive(Clone, Debug)]
pub struct RaceHit {
    pub first: usize,
    pub second: usize,
    pub relation: Relation,
    pub values: Vec<(String, i64)>,
    pub witness: Witness,
    pub index: i64,
    pub loop_values: [Vec<(String, i64)>; 2],
}

#[derive(Default)]
pub struct RaceSet {
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
}

pub struct KernelVerifier<'k> {
    pub kernel: &'k Kernel,
    pub env: LaunchEnv,
    pub options: &'k Options,
    pub cache: &'k dyn QueryCache,
    pub counters: Counters,
    accesses: HashMap<usize, &'k Access>,
    loops: HashMap<usize, &'k Loop>,
    config: SolverConfig<'k>,
    /// Barriers found divergent (checked first): replay ignores them.
    divergent: Vec<usize>,
    /// (array, relation) → no conflicting pair ever, barriers or not.
    independent: HashMap<(ArrayId, Relation), bool>,
}

pub struct KernelOutcome {
    pub findings: Vec<Finding>,
    pub report: KernelReport,
    pub races: Vec<RaceHit>,
    /// The kernel's time budget ran out: the result is incomplete.
    pub over_budget: bool,
}

impl<'k> KernelVerifier<'k> {
    pub fn new(
        kernel: &'k Kernel,
        options: &'k Options,
        cache: &'k dyn QueryCache,
        cancel: Option<&'k AtomicBool>,
    ) -> Self {
        let (block_dim, grid_dim) = options.launch_for(&kernel.name);
        let env = LaunchEnv {
            block_dim,
            grid_dim,
            block_used: kernel.block_dims_used,
            grid_used: kernel.grid_dims_used,
            max_threads: kernel.max_threads,
            bitvector: options.bitvector,
        };
        let accesses = kernel.accesses().into_iter().map(|a| (a.id, a)).collect();
        let loops = kernel.loops().into_iter().map(|l| (l.id, l)).collect();
        KernelVerifier {
            kernel,
            env,
            options,
            cache,
            counters: Counters::default(),
            accesses,
            loops,
            divergent: Vec::new(),
            independent: HashMap::new(),
            config: SolverConfig {
                timeout_ms: options.timeout_ms,
                rlimit: options.rlimit,
                cancel,
                deadline: (options.kernel_budget_ms > 0).then(|| {
                    Instant::now()
                        + std::time::Duration::from_millis(options.kernel_budget_ms as u64)
                }),
                witness: true,
            },
        }
    }

    /// The analysis must stop: cancelled, or the kernel's budget is spent.
    fn cancelled(&self) -> bool {
        self.config.cancelled() || self.config.out_of_budget()
    }

    pub fn run(mut self) -> KernelOutcome {
        let start = Instant::now();
        let k = self.kernel;
        let mut findings = Vec::new();
        for u in &k.unsupported {
            findings.push(Finding::new(
                FindingKind::NotVerified,
                Some(&k.name),
                u.span,
                format!("not verified: {} (the model cannot represent it)", u.what),
            ));
        }
        let mut divergent = Vec::new();
        let mut unknown_barriers = Vec::new();
        for b in k.barriers() {
            if self.cancelled() {
                break;
            }
            match self.divergence(b) {
                Divergence::Uniform => {}
                Divergence::Divergent(f) => {
                    divergent.push(b.id);
                    findings.push(*f);
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
        self.divergent = divergent.clone();
        let races = self.find_races(None);
        for hit in races.pairs.values() {
            findings.push(self.race_finding(hit));
        }
        let unconfirmed: std::collections::BTreeSet<(usize, usize)> = races
            .unconfirmed
            .iter()
            .map(|(p, q, _)| (*p, *q))
            .filter(|pair| !races.pairs.contains_key(pair))
            .collect();
        for (p, q) in &unconfirmed {
            let a = self.accesses[p];
            let b = self.accesses[q];
            let mut f = Finding::new(
                FindingKind::Unknown,
                Some(&k.name),
                a.span,
                format!(
                    "unknown: `{}` and `{}` (line {}) may race, but the solver's witness did not replay on the concrete model",
                    a.text,
                    b.text,
                    b.span.start.line + 1
                ),
            );
            f.related.push(Related {
                span: b.span,
                message: format!("the other access: `{}`", b.text),
            });
            findings.push(f);
        }
        for (acc, reason) in &races.unknown {
            let a = self.accesses[acc];
            findings.push(Finding::new(
                FindingKind::Unknown,
                Some(&k.name),
                a.span,
                format!(
                    "unknown: could not decide whether the accesses to `{}` in this barrier interval race ({reason})",
                    k.arrays[a.array].name
                ),
            ));
        }
        if self.options.check_redundant && !self.cancelled() {
            for b in k.barriers() {
                if b.has_value || divergent.contains(&b.id) || unknown_barriers.contains(&b.id) {
                    continue;
                }
                if self.cancelled() {
                    break;
                }
                if self.is_redundant(b) {
                    let what = barrier_name(b);
                    let f = Finding::new(
                        FindingKind::RedundantBarrier,
                        Some(&k.name),
                        b.span,
                        format!("redundant barrier: removing this `{what}` creates no data race"),
                    );
                    findings.push(f);
                }
            }
        }
        let over_budget = self.config.out_of_budget();
        if over_budget {
            findings.push(Finding::new(
                FindingKind::Unknown,
                Some(&k.name),
                k.span,
                format!(
                    "unknown: verification of `{}` stopped after its time budget ({} ms); what it found so far is reported, nothing else is proven",
                    k.name, self.options.kernel_budget_ms
                ),
            ));
        }
        let has = |kind: FindingKind| findings.iter().any(|f| f.kind == kind);
        let status = if has(FindingKind::BarrierDivergence) {
            KernelStatus::Divergent
        } else if has(FindingKind::DataRace) {
            KernelStatus::Racy
        } else if has(FindingKind::NotVerified) {
            KernelStatus::NotVerified
        } else if has(FindingKind::Unknown) || self.cancelled() {
            KernelStatus::Unknown
        } else {
            KernelStatus::Verified
        };
        let report = KernelReport {
            name: k.name.clone(),
            span: k.span,
            status,
            millis: start.elapsed().as_millis() as u64,
            queries: (self.counters.run + self.counters.reused) as u32,
            queries_reused: self.counters.reused as u32,
        };
        KernelOutcome {
            findings,
            report,
            races: races.pairs.into_values().collect(),
            over_budget,
        }
    }

    fn relations(&self) -> Vec<Relation> {
        let k = self.kernel;
        let has_warp =
            self.options.warp_sync || k.barriers().iter().any(|b| b.kind == BarrierKind::Warp);
        let mut out = if has_warp {
            vec![Relation::SameWarp, Relation::OtherWarp]
        } else {
            vec![Relation::SameBlock]
        };
        if k.accesses()
            .iter()
            .any(|a| k.arrays[a.array].space == MemorySpace::Global)
        {
            out.push(Relation::CrossBlock);
        }
        out
    }

    /// Whether uniform `facts` may hold together (unknown counts as yes).
    fn may_hold(&mut self, facts: &[Expr]) -> bool {
        !matches!(
            smt::solve(
                facts,
                &self.env,
                self.config,
                self.cache,
                &mut self.counters
            ),
            QueryOutcome::Unsat
        )
    }

    /// Every racing pair of accesses. With `skip`, the races that removing
    /// that barrier would create: only pairs of instances it separated.
    pub fn find_races(&mut self, skip: Option<usize>) -> RaceSet {
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

    /// Renames the per-thread variables of `e` for thread `t`.
    fn instantiate(
        &self,
        e: &Expr,
        t: u8,
        rel: Relation,
        subst: &[(Var, Expr)],
        counters_shared: bool,
    ) -> Expr {
        e.subst(&mut |v: &Var| {
            if let Some((_, val)) = subst.iter().find(|(c, _)| c == v) {
                return Some(val.clone());
            }
            let per_thread = match v.kind {
                VarKind::ThreadIdx(_) => true,
                VarKind::Counter { .. } => !counters_shared,
                VarKind::BlockIdx(_) => rel.cross_block(),
                VarKind::Unknown { scope, .. } => match scope {
                    Scope::Thread => true,
                    Scope::Block => rel.cross_block(),
                    Scope::Grid => false,
                },
                _ => false,
            };
            if let (VarKind::Unknown { .. }, Some((base, counters))) =
                (v.kind, split_iteration_tag(&v.name))
            {
                // One value per iteration: name it by the iteration it is in.
                let iters: Vec<String> = counters
                    .split(',')
                    .map(|c| match subst.iter().find(|(k, _)| &*k.name == c) {
                        Some((_, e)) => e.to_string(),
                        None if counters_shared => c.to_string(),
                        None => format!("{c}#{t}"),
                    })
                    .collect();
                let base = if per_thread {
                    format!("{base}#{t}")
                } else {
                    base.to_string()
                };
                return Some(Expr::Var(Var::new(
                    format!("{base}[{}]", iters.join(",")),
                    v.kind,
                )));
            }
            per_thread.then(|| Expr::Var(renamed(v, t)))
        })
    }

    fn relation_constraints(&self, rel: Relation) -> Vec<Expr> {
        let tid = |d: u8, t: u8| {
            Expr::Var(Var::new(
                format!("threadIdx.{}#{t}", DIMS[d as usize]),
                VarKind::ThreadIdx(d),
            ))
        };
        let bid = |d: u8, t: u8| {
            Expr::Var(Var::new(
                format!("blockIdx.{}#{t}", DIMS[d as usize]),
                VarKind::BlockIdx(d),
            ))
        };
        let used = |d: u8| self.env.fixed(VarKind::BlockDim(d)) != Some(1);
        let gused = |d: u8| self.env.fixed(VarKind::GridDim(d)) != Some(1);
        let mut tdiff = Expr::fals();
        for d in 0..3u8 {
            if used(d) {
                tdiff = Expr::or(tdiff, Expr::bin(BinOp::Ne, tid(d, 1), tid(d, 2)));
            }
        }
        let mut bdiff = Expr::fals();
        for d in 0..3u8 {
            if gused(d) {
                bdiff = Expr::or(bdiff, Expr::bin(BinOp::Ne, bid(d, 1), bid(d, 2)));
            }
        }
        let warp = |t: u8| {
            let bdim = |d: u8| Expr::Var(smt::block_dim_var(d));
            let mut lin = tid(0, t);
            if used(1) || used(2) {
                let y = if used(1) { tid(1, t) } else { Expr::Const(0) };
                let z = if used(2) { tid(2, t) } else { Expr::Const(0) };
                lin = Expr::add(lin, Expr::mul(bdim(0), Expr::add(y, Expr::mul(bdim(1), z))));
            }
            Expr::bin(BinOp::Div, lin, Expr::Const(32))
        };
        match rel {
            Relation::SameBlock => vec![tdiff],
            Relation::SameWarp => vec![tdiff, Expr::eq(warp(1), warp(2))],
            Relation::OtherWarp => vec![Expr::bin(BinOp::Ne, warp(1), warp(2))],
            Relation::CrossBlock => vec![bdiff],
            Relation::Any => vec![Expr::or(tdiff, bdiff)],
        }
    }

    fn assumptions(&self, rel: Relation, counters_shared: bool) -> Vec<Expr> {
        let mut out = Vec::new();
        for a in &self.kernel.assumptions {
            for t in [1, 2] {
                out.push(self.instantiate(a, t, rel, &[], counters_shared));
            }
        }
        out
    }

    /// The grouped two-thread query of `group` (one array, one interval):
    /// selectors `sel1`/`sel2` pick each thread's access, both happen and
    /// their indices meet in `index`. `None` when no pair can race (no
    /// write, or atomics only).
    fn group_query<'g>(
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
        if skip.is_some() {
            base.push(self.separated(&insts, rel));
        }
        Some(GroupQuery {
            insts,
            base,
            inst_exprs,
        })
    }

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
    fn offsets_disjoint_per_thread(&self, array: ArrayId) -> bool {
        let env = &self.env;
        if env.bitvector
            || env.fixed(VarKind::BlockDim(1)) != Some(1)
            || env.fixed(VarKind::BlockDim(2)) != Some(1)
        {
            return false;
        }
        let max_block = env
            .fixed(VarKind::BlockDim(0))
            .unwrap_or_else(|| env.max_threads.unwrap_or(1024).min(1024));
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
        offsets.iter().enumerate().all(|(i, &(k1, c1))| {
            offsets[i..].iter().all(|&(k2, c2)| {
                let conflict = (k1.writes() || k2.writes())
                    && !(k1 == AccessKind::Atomic && k2 == AccessKind::Atomic);
                let d = c2.checked_sub(c1);
                !conflict
                    || d.is_some_and(|d| {
                        d == 0 || d % coef != 0 || (d / coef).unsigned_abs() >= max_block as u64
                    })
            })
        })
    }

    fn barrier_independent(&mut self, array: ArrayId, rel: Relation) -> bool {
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
        let exact = !rel.cross_block() && self.offsets_disjoint_per_thread(array);
        let independent = match self.group_query(&group, rel, None) {
            None => true,
            Some(_) if exact => true,
            Some(q) => {
                // A pre-check: a short budget, undecided means "check
                // interval by interval" as before.
                let config = SolverConfig {
                    timeout_ms: self.config.timeout_ms.min(PRECHECK_TIMEOUT_MS),
                    witness: false,
                    ..self.config
                };
                matches!(
                    smt::solve(&q.base, &self.env, config, self.cache, &mut self.counters),
                    QueryOutcome::Unsat
                )
            }
        };
        self.independent.insert((array, rel), independent);
        independent
    }

    fn race_group(
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
        // The redundancy check only asks whether any race query is
        // satisfiable: no witness, no replay.
        let config = SolverConfig {
            witness: skip.is_none(),
            ..self.config
        };
        for _round in 0..64 {
            if self.cancelled() {
                return;
            }
            match smt::solve(&base, &self.env, config, self.cache, &mut self.counters) {
                QueryOutcome::Unsat => return,
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
                    let (Some(i), Some(j)) = (get("sel1"), get("sel2")) else {
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
                        Some(hit) => {
                            set.pairs.entry((p.min(q), p.max(q))).or_insert(hit);
                            block(&mut base, p, q, &mut blocked);
                        }
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
    }

    fn lookup_for<'v>(
        &self,
        values: &'v [(String, i64)],
        t: u8,
        rel: Relation,
    ) -> impl Fn(&Var) -> Option<i64> + 'v {
        let env = self.env.clone();
        move |v: &Var| {
            let get = |n: &str| values.iter().find(|(k, _)| k == n).map(|(_, x)| *x);
            let per = get(&format!("{}#{t}", v.name));
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
                VarKind::Unknown { .. } if v.name.contains('⟨') => per.or(shared),
                _ => per.or(shared).or(Some(0)),
            }
        }
    }

    /// Replays a race witness; returns the confirmed race.
    #[allow(clippy::too_many_arguments)]
    fn confirm_race(
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
        let loop_values = [
            self.loop_values(p, pi, 1, rel, &model_lookup),
            self.loop_values(q, qj, 2, rel, &model_lookup),
        ];
        Some(RaceHit {
            first: p,
            second: q,
            relation: rel,
            values: values.to_vec(),
            witness,
            index,
            loop_values,
        })
    }

    fn loop_values(
        &self,
        access: usize,
        inst: &Instance,
        t: u8,
        rel: Relation,
        lookup: &dyn Fn(&Var) -> Option<i64>,
    ) -> Vec<(String, i64)> {
        let mut out = Vec::new();
        for lid in &self.accesses[&access].loops {
            let Some(l) = self.loops.get(lid) else {
                continue;
            };
            for (name, e) in &l.display {
                let x = self.instantiate(e, t, rel, &inst.subst, false);
                let v = Interpreter {
                    lookup,
                    bitvector: self.env.bitvector,
                    only: &[],
                    max_steps: 1,
                    skip: &[],
                }
                .eval_with(&x);
                if let Some(v) = v {
                    out.push((name.clone(), v));
                }
            }
        }
        out
    }

    fn witness(&self, values: &[(String, i64)], rel: Relation, index: i64) -> Witness {
        let get = |n: &str| values.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
        let mut threads = Vec::new();
        for t in [1u8, 2] {
            let mut tid = [0i64; 3];
            let mut bid = [0i64; 3];
            for d in 0..3 {
                tid[d] = get(&format!("threadIdx.{}#{t}", DIMS[d])).unwrap_or(0);
                bid[d] = if rel.cross_block() {
                    get(&format!("blockIdx.{}#{t}", DIMS[d]))
                } else {
                    get(&format!("blockIdx.{}", DIMS[d]))
                }
                .unwrap_or(0);
            }
            threads.push(WitnessThread {
                thread_idx: tid,
                block_idx: bid,
            });
        }
        let mut out = Vec::new();
        for d in 0..3u8 {
            let name = format!("blockDim.{}", DIMS[d as usize]);
            let v = get(&name)
                .or(self.env.fixed(VarKind::BlockDim(d)))
                .unwrap_or(1);
            out.push((name, v));
        }
        for d in 0..3u8 {
            let name = format!("gridDim.{}", DIMS[d as usize]);
            let v = get(&name)
                .or(self.env.fixed(VarKind::GridDim(d)))
                .unwrap_or(1);
            out.push((name, v));
        }
        let mut params: Vec<String> = Vec::new();
        let mut collect = |e: &Expr| {
            e.for_each_var(&mut |v| {
                if matches!(v.kind, VarKind::Param { .. }) && !params.iter().any(|p| **p == *v.name)
                {
                    params.push(v.name.to_string());
                }
            })
        };
        for a in self.accesses.values() {
            collect(&a.index);
            collect(&a.guard);
        }
        params.sort();
        for p in params {
            if let Some(v) = get(&p) {
                out.push((p, v));
            }
        }
        out.push(("index".to_string(), index));
        Witness {
            threads,
            values: out,
        }
    }

    fn race_finding(&self, hit: &RaceHit) -> Finding {
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

    fn divergence(&mut self, b: &Barrier) -> Divergence {
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
                    if confirmed {
                        let witness = self.witness(&values, rel, 0);
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

    /// Evaluates an instantiated (query-level) expression under a model.
    fn eval_model(&self, e: &Expr, values: &[(String, i64)]) -> Option<i64> {
        let env = self.env.clone();
        let lookup = move |v: &Var| {
            values
                .iter()
                .find(|(k, _)| **k == *v.name)
                .map(|(_, x)| *x)
                .or_else(|| env.fixed(v.kind))
        };
        Interpreter {
            lookup: &lookup,
            bitvector: self.env.bitvector,
            only: &[],
            max_steps: 1,
            skip: &[],
        }
        .eval_with(e)
        .map(|x| (x != 0) as i64)
    }

    fn divergence_finding(&self, b: &Barrier, w: Witness) -> Finding {
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

    /// A barrier is redundant when no two instances it separates can race
    /// once it is gone (loop iterations included).
    fn is_redundant(&mut self, b: &Barrier) -> bool {
        let without = self.find_races(Some(b.id));
        !without.needed
            && without.unknown.is_empty()
            && without.unconfirmed.is_empty()
            && without.pairs.is_empty()
    }

    /// The two chosen instances were separated by the skipped barrier.
    fn separated(&self, insts: &[&Instance], rel: Relation) -> Expr {
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
        }
        out.push(sep);
        Expr::all(out)
    }
}

/// A grouped race query and what its selectors refer to.
struct GroupQuery<'g> {
    insts: Vec<&'g Instance>,
    base: Vec<Expr>,
    /// Per instance, per thread: the instantiated guard and index.
    inst_exprs: Vec<Vec<(Expr, Expr)>>,
}

/// The solver time for the barrier-independence pre-check (ms).
const PRECHECK_TIMEOUT_MS: u32 = 500;

/// The selector of thread `t`'s access in a grouped race query.
fn sel(t: u8) -> Expr {
    Expr::Var(Var::new(format!("sel{t}"), VarKind::Shared))
}

pub enum Divergence {
    Uniform,
    Divergent(Box<Finding>),
    Unknown(String),
}

/// `x#0⟨i@0,j@0⟩` → (`x#0`, `i@0,j@0`).
fn split_iteration_tag(name: &str) -> Option<(&str, &str)> {
    let (base, rest) = name.split_once('⟨')?;
    Some((base, rest.strip_suffix('⟩')?))
}

fn renamed(v: &Var, t: u8) -> Var {
    Var::new(format!("{}#{t}", v.name), v.kind)
}

/// A constraint that excludes the thread identities of one model.
fn exclude_model(values: &[(String, i64)]) -> Expr {
    let mut same = Expr::tru();
    for (n, v) in values {
        if n.starts_with("threadIdx") || n.starts_with("blockIdx") || n.starts_with("blockDim") {
            let kind = if n.starts_with("threadIdx") {
                VarKind::ThreadIdx(dim_of(n))
            } else if n.starts_with("blockIdx") {
                VarKind::BlockIdx(dim_of(n))
            } else {
                VarKind::BlockDim(dim_of(n))
            };
            same = Expr::and(
                same,
                Expr::eq(Expr::Var(Var::new(n.as_str(), kind)), Expr::Const(*v)),
            );
        }
    }
    Expr::not(same)
}

fn dim_of(name: &str) -> u8 {
    if name.contains(".y") {
        1
    } else if name.contains(".z") {
        2
    } else {
        0
    }
}

pub fn barrier_name(b: &Barrier) -> &'static str {
    match (b.kind, b.has_value) {
        (BarrierKind::Warp, _) => "__syncwarp()",
        (BarrierKind::Block, false) => "__syncthreads()",
        (BarrierKind::Block, true) => "__syncthreads_count()",
        (BarrierKind::Grid, _) => "grid.sync()",
    }
}

/// `e` as `a * threadIdx.x + c` with integers `a` and `c` (launch sizes the
/// environment fixes are constants), or `None` for any other form.
fn affine_in_thread_x(e: &Expr, env: &LaunchEnv, depth: usize) -> Option<(i64, i64)> {
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
