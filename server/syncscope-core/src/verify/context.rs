//! What every check of one kernel shares: the kernel and its launch
//! environment, the solver's configuration and counters, the two threads'
//! relations, and instantiating an expression for one thread of a pair.
//! Each check (`divergence`, `races`, `redundancy`, `assertions`,
//! `schedules`, ...) is a set of functions over [`KernelContext`], and
//! `engine` runs them in sequence. Must not hold a check nor call one: the
//! checks depend on this module, never the other way round, so the imports
//! inside `verify` form no circle.

use super::budget::KernelBudget;
use super::intervals::Level;
use super::replay::Outline;
use super::smt::{self, Counters, LaunchEnv, SolverConfig};
use super::sweep::SweepCache;
use crate::cache::{QueryCache, QueryOutcome};
use crate::model::*;
use crate::options::Options;
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

/// One kernel under verification: what its checks read, and the solver
/// state and caches they share.
pub(crate) struct KernelContext<'k> {
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
    /// What each unknown with a known origin is a function of, computed
    /// once (`congruence`).
    pub(super) origins: std::cell::OnceCell<Origins<'k>>,
}

impl<'k> KernelContext<'k> {
    pub(crate) fn new(
        kernel: &'k Kernel,
        options: &'k Options,
        cache: &'k dyn QueryCache,
        cancel: Option<&'k AtomicBool>,
        budget: &'k KernelBudget,
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
        let mut context = KernelContext {
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
            origins: std::cell::OnceCell::new(),
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
                budget: Some(budget),
                witness: true,
            },
        };
        context.relations = context.query_relations();
        context
    }

    /// The analysis must stop: cancelled, or the kernel's budget is spent.
    pub(super) fn cancelled(&self) -> bool {
        self.config.cancelled() || self.config.out_of_budget()
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

/// Whether [`KernelContext::instantiate`] gives `v` (not the other
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

// The unknowns' origins are computed by `congruence` and kept here, once
// per kernel (the type lives with the context so the two do not import
// each other).
/// What each unknown with a known origin is a function of, by name.
pub(super) type Origins<'k> = HashMap<&'k str, (&'k Var, Origin<'k>)>;

/// What an unknown of the model is a function of.
#[derive(Clone)]
pub(super) enum Origin<'k> {
    /// One operation of the code (`Function::Site`) of these operands.
    Site(&'k str, &'k [Expr]),
    /// A texture fetch (`Function::Fetch`) with these operands.
    Fetch(&'k str, &'k [Expr]),
    /// The read of the read-only array at this index.
    Read(ArrayId, &'k Expr),
    /// The read (its access) of a `__shared__` cell the reading thread
    /// may have written itself by one of these writes (`own_slots`).
    OwnSlot(&'k Access, Vec<&'k Access>),
}
