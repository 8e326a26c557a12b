//! The per-kernel driver: runs the divergence, race and redundancy checks
//! in that order and turns their outcomes into the kernel's findings and
//! status. Owns what the checks share (the launch environment, the two
//! threads' relations, instantiating an access for a thread). Must not
//! hold the checks themselves (`divergence`, `races`, `redundancy`).

use super::collisions::SweepCache;
use super::divergence::Divergence;
use super::intervals::Level;
pub(crate) use super::races::RaceHit;
use super::replay::Outline;
use super::smt::{self, Counters, LaunchEnv, SolverConfig};
use crate::cache::{QueryCache, QueryOutcome};
use crate::model::*;
use crate::options::Options;
use crate::report::*;
use crate::symbols;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// How the two threads of a query relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Relation {
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
    pub(super) fn level(self) -> Level {
        match self {
            Relation::SameWarp => Level::Warp,
            Relation::OtherWarp | Relation::SameBlock => Level::Block,
            Relation::CrossBlock | Relation::Any => Level::Grid,
        }
    }
    pub(super) fn cross_block(self) -> bool {
        matches!(self, Relation::CrossBlock | Relation::Any)
    }
    /// Whether a value of this scope may differ between the two threads.
    pub(super) fn may_differ(self, scope: Scope) -> bool {
        match scope {
            Scope::Thread => true,
            Scope::Block => self.cross_block(),
            Scope::Grid => false,
        }
    }
    pub(super) fn epoch(self) -> usize {
        match self.level() {
            Level::Warp => 0,
            Level::Block => 1,
            Level::Grid => 2,
        }
    }
}

pub(crate) struct KernelVerifier<'k> {
    pub kernel: &'k Kernel,
    pub env: LaunchEnv,
    pub options: &'k Options,
    pub cache: &'k dyn QueryCache,
    pub counters: Counters,
    pub(super) accesses: HashMap<usize, &'k Access>,
    pub(super) loops: HashMap<usize, &'k Loop>,
    pub(super) config: SolverConfig<'k>,
    /// Barriers found divergent (checked first): replay ignores them.
    pub(super) divergent: Vec<usize>,
    /// (array, relation) → no conflicting pair ever, barriers or not.
    pub(super) independent: HashMap<(ArrayId, Relation), bool>,
    /// The relations of the two threads of every race query.
    pub(super) relations: Vec<Relation>,
    /// The arrays the kernel accesses, in order.
    pub(super) accessed_arrays: Vec<ArrayId>,
    /// Each barrier's kind and, for one at the kernel's top level, its
    /// position there.
    pub(super) barrier_places: HashMap<usize, (BarrierKind, Option<usize>)>,
    /// What the concrete collision searches reuse.
    pub(super) sweep: SweepCache,
    /// The top level of the kernel, for replays of one pair.
    pub(super) outline: Outline,
    /// The parameters the kernel's accesses mention, sorted (witnesses
    /// show their values).
    pub(super) params: Vec<String>,
}

pub(crate) struct KernelOutcome {
    pub findings: Vec<Finding>,
    pub report: KernelReport,
    pub races: Vec<RaceHit>,
    /// The kernel's time budget ran out: the result is incomplete.
    pub over_budget: bool,
    pub counters: Counters,
}

impl<'k> KernelVerifier<'k> {
    pub(crate) fn new(
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
        let accesses: HashMap<usize, &Access> =
            kernel.accesses().into_iter().map(|a| (a.id, a)).collect();
        let mut params: Vec<String> = Vec::new();
        for a in accesses.values() {
            for e in [&a.index, &a.guard] {
                e.for_each_var(&mut |v| {
                    if matches!(v.kind, VarKind::Param { .. })
                        && !params.iter().any(|p| **p == *v.name)
                    {
                        params.push(v.name.to_string());
                    }
                });
            }
        }
        params.sort();
        let loops = kernel.loops().into_iter().map(|l| (l.id, l)).collect();
        let mut accessed_arrays: Vec<ArrayId> = accesses.values().map(|a| a.array).collect();
        accessed_arrays.sort_unstable();
        accessed_arrays.dedup();
        let mut barrier_places: HashMap<usize, (BarrierKind, Option<usize>)> = kernel
            .barriers()
            .into_iter()
            .map(|b| (b.id, (b.kind, None)))
            .collect();
        for (pos, s) in kernel.body.iter().enumerate() {
            if let Stmt::Barrier(b) = s {
                barrier_places.insert(b.id, (b.kind, Some(pos)));
            }
        }
        let mut verifier = KernelVerifier {
            kernel,
            env,
            options,
            cache,
            counters: Counters::default(),
            accesses,
            loops,
            divergent: Vec::new(),
            independent: HashMap::new(),
            outline: Outline::new(kernel),
            sweep: SweepCache::default(),
            params,
            relations: Vec::new(),
            accessed_arrays,
            barrier_places,
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
        };
        verifier.relations = verifier.query_relations();
        verifier
    }

    /// The analysis must stop: cancelled, or the kernel's budget is spent.
    pub(super) fn cancelled(&self) -> bool {
        self.config.cancelled() || self.config.out_of_budget()
    }

    pub(crate) fn run(mut self) -> KernelOutcome {
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
        if k.unsupported.is_empty() && k.accesses().is_empty() && k.barriers().is_empty() {
            // Verified, but vacuously: say so rather than claim a proof of
            // something that was never looked at.
            findings.push(Finding::new(
                FindingKind::Note,
                Some(&k.name),
                k.span,
                format!(
                    "note: the model of `{}` has no memory access and no barrier: it is verified only in the sense that there is nothing to check",
                    k.name
                ),
            ));
        }
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
        self.divergent = divergent.clone();
        let mut races = self.find_races(None);
        // A race or divergence is reported only with a witness that replays
        // with a concrete value for every name it uses: one that depends on
        // a function or name the front end cannot see is a possible race,
        // not verified, naming what it depends on.
        let modelled: Vec<String> = self
            .modelled_last_blocks()
            .iter()
            .map(|lb| lb.counter.clone())
            .collect();
        findings.extend(self.last_block_notes());
        let mut unseen_pairs = Vec::new();
        for (pair, hit) in &races.pairs {
            let (a, b) = (self.accesses[&hit.first], self.accesses[&hit.second]);
            let origins = undecided_origins(a, b, &modelled);
            if origins.is_empty() {
                // A definite race: reported below, grouped by the barrier
                // that would separate it.
                continue;
            }
            unseen_pairs.push(*pair);
            let (fences, rest): (Vec<&String>, Vec<&String>) =
                origins.iter().partition(|o| o.starts_with("fence@"));
            let (wraps, rest): (Vec<&String>, Vec<&String>) =
                rest.into_iter().partition(|o| o.starts_with("wrap@"));
            let (locks, unseen): (Vec<&String>, Vec<&String>) =
                rest.into_iter().partition(|o| o.starts_with("lock@"));
            let mut why = Vec::new();
            if !unseen.is_empty() {
                let names: Vec<String> = unseen.iter().map(|o| format!("`{o}`")).collect();
                why.push(format!(
                    "depends on {} (not visible to the analysis: a function without a body or an undeclared name)",
                    names.join(", ")
                ));
            }
            if !locks.is_empty() {
                let names: Vec<String> = locks
                    .iter()
                    .map(|o| format!("`{}`", o.trim_start_matches("lock@")))
                    .collect();
                why.push(format!(
                    "depends on mutual exclusion by the lock {} (spinning on atomicCAS/atomicExch; locks are not modelled)",
                    names.join(", ")
                ));
            }
            if !wraps.is_empty() {
                why.push(
                    "depends on the values `atomicInc` returns (it wraps at its bound, so they are distinct tickets only while the bound covers every increment: modelled only in the last-block pattern)"
                        .to_string(),
                );
            }
            if !fences.is_empty() {
                let names: Vec<String> = fences
                    .iter()
                    .map(|o| format!("`{}`", o.trim_start_matches("fence@")))
                    .collect();
                why.push(format!(
                    "depends on the order `__threadfence()` and the atomic on {} give between blocks (the last-block pattern is not modelled)",
                    names.join(", ")
                ));
            }
            let mut f = Finding::new(
                FindingKind::NotVerified,
                Some(&k.name),
                a.span,
                format!(
                    "not verified: possible race between `{}` and `{}` (line {}), {}",
                    a.text,
                    b.text,
                    b.span.start.line + 1,
                    why.join("; ")
                ),
            );
            f.related.push(Related {
                span: b.span,
                message: format!("the other access: `{}`", b.text),
            });
            findings.push(f);
        }
        for pair in unseen_pairs {
            races.pairs.remove(&pair);
        }
        let hits: Vec<&RaceHit> = races.pairs.values().collect();
        findings.extend(self.race_findings(&hits));
        for (pair, hit) in &races.benign {
            let (a, b) = (self.accesses[&hit.first], self.accesses[&hit.second]);
            // A same-value pair that depends on what the model does not
            // decide is no finding either way (never a data race).
            if !races.pairs.contains_key(pair) && undecided_origins(a, b, &modelled).is_empty() {
                findings.push(self.benign_race_finding(hit));
            }
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
            // Why it did not replay, where the query tells: bitwise
            // operations put it in 32-bit vectors, whose wrap-around the
            // integer model (and its replay) does not have.
            let why = if races.unconfirmed_in_bitvectors.contains(&(*p, *q)) {
                " (its query has bitwise operations, which the solver decides in 32-bit wrap-around arithmetic; the integer model has no wrap-around; `--bitvector` checks the kernel with it)"
            } else {
                ""
            };
            let mut f = Finding::new(
                FindingKind::Unknown,
                Some(&k.name),
                a.span,
                format!(
                    "unknown: `{}` and `{}` (line {}) may race, but the solver's witness did not replay on the concrete model{why}",
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
        findings.extend(self.check_assertions());
        // A redundancy claim is a proof that the kernel without the barrier
        // verifies under the same launch and assumptions: only a kernel
        // that verifies itself (no race, divergence, assertion, not-verified
        // part or unknown answer) can give one, and every query of the
        // kernel without the barrier must come back unsat. Part of a kernel
        // outside the model (an unmodelled asynchronous copy) may be what
        // the barrier orders.
        let verified_so_far = findings.iter().all(|f| {
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
                if b.has_value || divergent.contains(&b.id) || unknown_barriers.contains(&b.id) {
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
        findings.extend(self.assumption_note());
        if self.options.deterministic_for(&k.name) && !self.cancelled() {
            findings.extend(self.check_schedules());
        }
        let over_budget = self.config.out_of_budget();
        if over_budget || self.cancelled() {
            // An incomplete run proves nothing, so it claims no redundancy.
            findings.retain(|f| f.kind != FindingKind::RedundantBarrier);
        }
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
        } else if has(FindingKind::Assertion) {
            KernelStatus::AssertionFailed
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
            launch: None,
        };
        KernelOutcome {
            findings,
            report,
            races: races.pairs.into_values().collect(),
            over_budget,
            counters: self.counters,
        }
    }

    fn query_relations(&self) -> Vec<Relation> {
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
    pub(super) fn may_hold(&mut self, facts: &[Expr]) -> bool {
        // Only sat or unsat matters here: no witness model.
        let config = SolverConfig {
            witness: false,
            ..self.config
        };
        !matches!(
            smt::solve(facts, &self.env, config, self.cache, &mut self.counters),
            QueryOutcome::Unsat
        )
    }

    /// Renames the per-thread variables of `e` for thread `t`.
    pub(super) fn instantiate(
        &self,
        e: &Expr,
        t: u8,
        rel: Relation,
        subst: &[(Var, Expr)],
        counters_shared: bool,
    ) -> Expr {
        e.subst(&mut |v: &Var| {
            if let Some(base) = v.name.strip_suffix(OTHER_THREAD) {
                // `__other_int(x)` of thread t is x of the other thread.
                let own = Expr::Var(Var::new(base, v.kind));
                let other = if t == 1 { 2 } else { 1 };
                return Some(self.instantiate(&own, other, rel, subst, counters_shared));
            }
            if let Some((_, val)) = subst.iter().find(|(c, _)| c == v) {
                return Some(val.clone());
            }
            let per_thread = per_thread(v, rel, counters_shared);
            if let (VarKind::Unknown { .. }, Some((base, counters))) =
                (v.kind, symbols::split_iteration_tag(&v.name))
            {
                // One value per iteration: name it by the iteration it is in.
                let iters: Vec<String> = counters
                    .split(',')
                    .map(|c| match subst.iter().find(|(k, _)| &*k.name == c) {
                        Some((_, e)) => e.to_string(),
                        None if counters_shared => c.to_string(),
                        None => symbols::for_thread(c, t),
                    })
                    .collect();
                let base = if per_thread {
                    symbols::for_thread(base, t)
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

    pub(super) fn relation_constraints(&self, rel: Relation) -> Vec<Expr> {
        let tid = |d: u8, t: u8| {
            Expr::Var(Var::new(
                symbols::thread_idx(d as usize, t),
                VarKind::ThreadIdx(d),
            ))
        };
        let bid = |d: u8, t: u8| {
            Expr::Var(Var::new(
                symbols::block_idx(d as usize, t),
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
            // Threads that a warp-level barrier orders together: a warp
            // (`--warp-sync=N` sets its width) or a smaller tile.
            let width = self
                .kernel
                .warp_width
                .min(i64::from(self.options.warp_size.max(1)));
            Expr::bin(BinOp::Div, lin, Expr::Const(width.max(1)))
        };
        match rel {
            Relation::SameBlock => vec![tdiff],
            Relation::SameWarp => vec![tdiff, Expr::eq(warp(1), warp(2))],
            Relation::OtherWarp => vec![Expr::bin(BinOp::Ne, warp(1), warp(2))],
            Relation::CrossBlock => vec![bdiff],
            Relation::Any => vec![Expr::or(tdiff, bdiff)],
        }
    }

    pub(super) fn assumptions(&self, rel: Relation, counters_shared: bool) -> Vec<Expr> {
        let mut out = Vec::new();
        for a in &self.kernel.assumptions {
            for t in [1, 2] {
                out.push(self.instantiate(a, t, rel, &[], counters_shared));
            }
        }
        out
    }
}

pub(super) fn renamed(v: &Var, t: u8) -> Var {
    Var::new(symbols::for_thread(&v.name, t), v.kind)
}

pub(crate) fn barrier_name(b: &Barrier) -> &'static str {
    match (b.kind, b.has_value) {
        (BarrierKind::Warp, _) => "__syncwarp()",
        (BarrierKind::Block, false) => "__syncthreads()",
        (BarrierKind::Block, true) => "__syncthreads_count()",
        (BarrierKind::Grid, _) => "grid.sync()",
    }
}

/// What a race between `a` and `b` depends on that the model does not
/// decide: names of code it cannot see, a lock both accesses hold
/// (`lock@l`), an atomic after `__threadfence()` either follows
/// (`fence@t`). Empty for a definite race.
fn undecided_origins(
    a: &Access,
    b: &Access,
    modelled: &[String],
) -> std::collections::BTreeSet<String> {
    let mut origins = a.index.unseen_origins();
    for e in [&a.guard, &b.index, &b.guard] {
        origins.extend(e.unseen_origins());
    }
    // A lock matters only when both accesses hold it: with one side outside
    // it, the race is definite.
    origins.extend(
        a.guard
            .locks_held()
            .intersection(&b.guard.locks_held())
            .map(|l| format!("lock@{l}")),
    );
    // A value `atomicInc` returned (outside the last-block pattern, whose
    // block tickets have names of their own): tickets up to its wrap bound,
    // not modelled; never a definite race nor silently safe.
    for e in [&a.index, &a.guard, &b.index, &b.guard] {
        e.for_each_var(&mut |v| {
            if crate::symbols::is_atomic_inc_result(&v.name) {
                origins.insert("wrap@atomicInc".to_string());
            }
        });
    }
    // Code after a fenced atomic may be ordered after other blocks' writes
    // by that atomic (the last-block pattern): undecided unless the model
    // of the pattern (`modelled`, the counters of `verify::last_block`)
    // covers it.
    origins.extend(
        a.guard
            .fences_after()
            .union(&b.guard.fences_after())
            .filter(|t| !modelled.contains(t))
            .map(|t| format!("fence@{t}")),
    );
    origins
}

/// Whether [`KernelVerifier::instantiate`] gives `v` (not the other
/// thread's, not substituted) its own name in each thread of `rel`: a
/// thread index, a loop counter unless counters are shared, and a block
/// index or unknown whose scope lets it differ between the two threads.
pub(super) fn per_thread(v: &Var, rel: Relation, counters_shared: bool) -> bool {
    match v.kind {
        VarKind::ThreadIdx(_) => true,
        VarKind::Counter { .. } => !counters_shared,
        VarKind::BlockIdx(_) | VarKind::Unknown { .. } => rel.may_differ(v.scope()),
        _ => false,
    }
}
