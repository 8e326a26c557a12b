//! `--deterministic` (issue 15, GKLEE-atm, seed 000): whether the final
//! memory of a kernel can depend on the order of its atomic operations.
//!
//! The proof is an exchange argument, exact per atomic operation A on an
//! array X: any two orders of the operations are connected by swaps of
//! two neighbours in one cell's order, so the final memory is the same in
//! every order when no such swap changes it. A swap of two threads'
//! operations changes nothing when (1) the operations on X commute (one
//! commutative family: add/sub, max, min, and, or, xor; or the same
//! function for every thread, such as `atomicExch(&x, 1)` or
//! `atomicCAS(&f, 0, 1)` with operands every thread shares), so the cell
//! holds the same value after both, and (2) A's result is discarded, or
//! used only as the same function of the result for every thread (the
//! two threads then exchange their results and their effects: `slot =
//! atomicAdd(&n, 1); out[slot] = 1`). Races of plain accesses are the race
//! check's business: this check assumes none.
//!
//! When the argument does not apply, a small exact concrete executor
//! looks for two schedules: it runs the whole launch (fixed sizes, or a
//! small launch when they are symbolic) once, the threads taking turns,
//! then swaps
//! each pair of neighbouring operations of different threads on one cell
//! that the barriers leave unordered, and compares the final memory. Two
//! different final memories are a `schedule-dependent` finding with both
//! schedules; no difference found is `unknown`, never a proof.

use super::context::*;
use super::replay::{eval_expr, LaunchShape};
use crate::model::*;
use crate::report::*;
use crate::symbols;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The concrete search runs launches of at most this many threads.
const MAX_THREADS: i64 = 1024;
/// Reorderings tried per kernel (each one runs the whole launch again).
const MAX_SWAPS: usize = 512;
/// Events all the runs of one kernel may execute together: a launch of
/// many threads with unrolled loops gets fewer reorderings.
const MAX_WORK: usize = 1_000_000;
/// The block size of the search when the launch is symbolic.
const SMALL_BLOCK: u32 = 4;

/// The commutative family an atomic operation belongs to (operations of
/// one family commute whatever their operands).
fn family(op: &str) -> Option<&'static str> {
    Some(match op {
        "atomicAdd" | "atomicSub" => "add",
        "atomicMax" => "max",
        "atomicMin" => "min",
        "atomicAnd" => "and",
        "atomicOr" => "or",
        "atomicXor" => "xor",
        _ => return None,
    })
}

/// The top-level conjuncts of a condition.
fn conjuncts(e: &Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::Bin(BinOp::And, a, b) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        _ => out.push(e.clone()),
    }
}

/// A memory cell of the concrete run: the array, the block for a
/// `__shared__` array (each block has its own; -1 for global memory) and
type Cell = (ArrayId, i64, i64);

/// One thread's event in the concrete run.
#[derive(Clone)]
struct Event {
    epoch: u32,
    /// An atomic operation (index into `Kernel::atomic_ops`), or `None`
    /// for a plain write or a read.
    atomic: Option<usize>,
    access: usize,
    /// For a read of memory the kernel writes: the unknown that stands for
    /// the value it returns (the run gives it the cell's content then).
    read: Option<Var>,
    /// The enclosing loops' counters at this event (loops are unrolled).
    counters: Vec<(Var, i64)>,
}

/// An event of a run: (thread, the event's index in that thread's list).
type Step = (usize, usize);

/// The outcome of one concrete run.
struct Run {
    /// Final memory: (array, index) → value (`None`: not a value the model has).
    memory: BTreeMap<Cell, Option<i64>>,
    /// Per cell, the atomic operations in the order they ran.
    orders: BTreeMap<Cell, Vec<Step>>,
    /// What each atomic operation returned.
    returned: HashMap<Step, i64>,
    /// Who wrote each location last (thread, access), for messages.
    writers: BTreeMap<Cell, (usize, usize)>,
}

/// A swap to force: on `cell`, the first `prefix` operations run in this order.
struct Forced {
    cell: Cell,
    prefix: Vec<Step>,
}

/// Most events one thread's unrolled program may have.
const MAX_EVENTS_PER_THREAD: usize = 4096;
/// Most events of all threads together.
const MAX_EVENTS: usize = 200_000;

/// The launch the concrete search runs (its threads' coordinates:
/// `LaunchShape`), its parameters, and the inputs it chose.
struct Launch {
    shape: LaunchShape,
    params: Vec<(Var, i64)>,
    /// The truth the search gives every opaque comparison of the inputs
    /// (a floating-point comparison such as `in[i] > 0.0f`): 1 (it holds
    /// for every thread) lets the threads it guards contend; 0 is the
    /// other input tried.
    opaque_truth: i64,
    /// The one opaque comparison the search may choose (its name without
    /// iteration tag), see `KernelContext::opaque_comparison`.
    opaque_comparison: Option<String>,
    /// Whether a run read such a chosen truth (the finding says so).
    chose_truth: std::cell::Cell<bool>,
}

impl Launch {
    fn threads(&self) -> i64 {
        self.shape.threads()
    }
    fn per_block(&self) -> i64 {
        self.shape.per_block()
    }
    /// (threadIdx, blockIdx) of thread number `n` (x fastest).
    fn coords(&self, n: i64) -> ([i64; 3], [i64; 3]) {
        self.shape.coords(n)
    }
    fn block_of(&self, n: usize) -> i64 {
        n as i64 / self.per_block()
    }
}

/// The barrier interval of each atomic operation's access at the kernel's
/// top level: the number of `__syncthreads()` every thread of the block
/// passes before it (a block barrier whose guard is constant true, outside
/// loops), or `None` for an access in a loop that contains a barrier.
/// Two operations of one block in different intervals are ordered.
fn barrier_intervals(body: &[Stmt]) -> HashMap<usize, Option<u32>> {
    fn has_barrier(stmts: &[Stmt]) -> bool {
        let mut found = false;
        walk(stmts, &mut |s| found |= matches!(s, Stmt::Barrier(_)));
        found
    }
    fn go(stmts: &[Stmt], interval: &mut u32, out: &mut HashMap<usize, Option<u32>>) {
        for s in stmts {
            match s {
                Stmt::Access(a) => {
                    out.insert(a.id, Some(*interval));
                }
                Stmt::Barrier(b) => {
                    let always = matches!(b.guard, Expr::Const(c) if c != 0);
                    if always && b.kind != BarrierKind::Warp {
                        *interval += 1;
                    }
                }
                Stmt::If(a, b) => {
                    // A barrier under a condition that is not constant
                    // true separates nothing: both branches and what
                    // follows stay in the interval (a constant-true one
                    // in a branch still counts, as everywhere).
                    let start = *interval;
                    let mut ia = start;
                    go(a, &mut ia, out);
                    let mut ib = start;
                    go(b, &mut ib, out);
                    *interval = ia.min(ib);
                }
                Stmt::Loop(l) if has_barrier(&l.body) => {
                    walk(&l.body, &mut |s| {
                        if let Stmt::Access(a) = s {
                            out.insert(a.id, None);
                        }
                    });
                }
                Stmt::Loop(l) => go(&l.body, interval, out),
                Stmt::LoopExit(_) => {}
            }
        }
    }
    let mut out = HashMap::new();
    go(body, &mut 0, &mut out);
    out
}
impl<'k> KernelContext<'k> {
    /// The `--deterministic` check: no finding when every atomic operation
    /// is order-independent, a `schedule-dependent` finding with two
    /// schedules, or `unknown` when neither could be shown.
    pub(super) fn check_schedules(&mut self) -> Vec<Finding> {
        let k = self.kernel;
        let intervals = barrier_intervals(&k.body);
        let shared_across_blocks = self.arrays_shared_across_blocks(&intervals);
        let undecided: Vec<&AtomicOp> = k
            .atomic_ops
            .iter()
            .filter(|op| !self.order_independent(op, &intervals, &shared_across_blocks))
            .collect();
        let Some(first) = undecided.first() else {
            return Vec::new();
        };
        if let Some(f) = self.search_schedules() {
            return vec![f];
        }
        vec![Finding::new(
            FindingKind::Unknown,
            Some(&k.name),
            first.span,
            format!(
                "unknown: could not decide whether the final memory depends on the order of `{}` (its result or its operands are not the same function for every thread, and the concrete search over {} found no two schedules that differ)",
                first.text,
                match (self.env.block_dim, self.env.grid_dim) {
                    (Some(_), Some(_)) => "the fixed launch".to_string(),
                    _ => "a small launch".to_string(),
                }
            ),
        )]
    }

    /// The global arrays whose atomic operations in different barrier
    /// intervals may meet on one cell from two blocks (a barrier orders
    /// one block only): there, operations the barriers separate inside a
    /// block are still unordered. A solver query per pair of sites; an
    /// undecided query counts as "may meet".
    fn arrays_shared_across_blocks(
        &mut self,
        intervals: &HashMap<usize, Option<u32>>,
    ) -> HashSet<ArrayId> {
        let k = self.kernel;
        let mut out = HashSet::new();
        let one_block = self
            .env
            .grid_dim
            .is_some_and(|g| g.iter().map(|&d| i64::from(d)).product::<i64>() == 1);
        if one_block {
            return out;
        }
        let mut arrays: Vec<ArrayId> = Vec::new();
        for o in &k.atomic_ops {
            if let Some(a) = self.accesses.get(&o.access) {
                if k.arrays[a.array].space == MemorySpace::Global && !arrays.contains(&a.array) {
                    arrays.push(a.array);
                }
            }
        }
        for array in arrays {
            let sites: Vec<&Access> = k
                .atomic_ops
                .iter()
                .filter_map(|o| self.accesses.get(&o.access).copied())
                .filter(|a| a.array == array)
                .collect();
            let spans_intervals = sites.iter().any(|a| {
                intervals.get(&a.id).copied().flatten()
                    != intervals.get(&sites[0].id).copied().flatten()
            });
            if !spans_intervals {
                // Every operation on the array is in one interval: the
                // barriers order none of them, whatever the blocks.
                continue;
            }
            let rel = Relation::CrossBlock;
            let mut shared = false;
            'pairs: for a in &sites {
                for b in &sites {
                    if a.width != 1 || b.width != 1 || self.cancelled() {
                        shared = true;
                        break 'pairs;
                    }
                    let mut facts = vec![
                        self.instantiate(&a.guard, 1, rel, &[], false),
                        self.instantiate(&b.guard, 2, rel, &[], false),
                        Expr::eq(
                            self.instantiate(&a.index, 1, rel, &[], false),
                            self.instantiate(&b.index, 2, rel, &[], false),
                        ),
                    ];
                    facts.extend(self.relation_constraints(rel));
                    facts.extend(self.assumptions(rel, false));
                    if self.may_hold(&facts) {
                        shared = true;
                        break 'pairs;
                    }
                }
            }
            if shared {
                out.insert(array);
            }
        }
        out
    }

    /// Whether swapping two threads' `op` never changes the final memory
    /// (the exchange argument of the module comment). Only the operations
    /// that may run unordered with `op` take part: those the barriers put
    /// in another interval of the block (on a cell no two blocks share)
    /// are never swapped with it.
    fn order_independent(
        &self,
        op: &AtomicOp,
        intervals: &HashMap<usize, Option<u32>>,
        shared_across_blocks: &HashSet<ArrayId>,
    ) -> bool {
        let k = self.kernel;
        let Some(acc) = self.accesses.get(&op.access) else {
            return false;
        };
        let shared = k.arrays[acc.array].space == MemorySpace::Shared;
        // A value every thread that may meet on the cell shares.
        let uniform = |e: &Expr| match e.scope() {
            Scope::Grid => true,
            Scope::Block => shared,
            Scope::Thread => false,
        };
        let interval = |id: usize| intervals.get(&id).copied().flatten();
        let concurrent = |other: &AtomicOp| {
            if shared_across_blocks.contains(&acc.array) {
                return true;
            }
            match (interval(op.access), interval(other.access)) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
        };
        let sites: Vec<&AtomicOp> = k
            .atomic_ops
            .iter()
            .filter(|o| self.accesses.get(&o.access).map(|a| a.array) == Some(acc.array))
            .filter(|o| concurrent(o))
            .collect();
        let same_function = sites.iter().all(|o| {
            o.op == op.op
                && o.operands == op.operands
                && o.operands.iter().all(|x| x.as_ref().is_some_and(uniform))
        });
        let one_family =
            family(&op.op).is_some() && sites.iter().all(|o| family(&o.op) == family(&op.op));
        if !(same_function || one_family) {
            return false;
        }
        if op.discarded {
            return true;
        }
        let Some(r) = &op.result else {
            return false;
        };
        if k.atomic_results_summarised || !k.unsupported.is_empty() {
            return false;
        }
        let mut is_r = |v: &Var| v == r;
        let mut uses_ok = true;
        let mut used = false;
        let mut a_guard = Vec::new();
        conjuncts(&acc.guard, &mut a_guard);
        // The same function of `r` for both threads: besides `r`, only
        // values they share (and loop counters, whose range is the same).
        let same_for_both = |e: &Expr| {
            !e.mentions(&mut |v: &Var| {
                v != r
                    && !matches!(v.kind, VarKind::Counter { .. })
                    && !uniform(&Expr::Var(v.clone()))
            })
        };
        let rest_of_guard = |g: &Expr| {
            let mut cs = Vec::new();
            conjuncts(g, &mut cs);
            Expr::all(cs.into_iter().filter(|c| !a_guard.contains(c)))
        };
        for a in k.accesses() {
            let mentions = [&a.index, &a.guard]
                .into_iter()
                .chain(a.value.as_ref())
                .any(|e| e.mentions(&mut is_r));
            let operands: Vec<&Expr> = k
                .atomic_ops
                .iter()
                .filter(|o| o.access == a.id)
                .flat_map(|o| o.operands.iter().flatten())
                .collect();
            let in_operand = operands.iter().any(|e| e.mentions(&mut is_r));
            if !(mentions || in_operand) {
                continue;
            }
            used = true;
            let ok = match a.kind {
                // What a read returns is a fresh value: `r` may flow on
                // through it where the model cannot follow.
                AccessKind::Read => false,
                AccessKind::Write => a.value.as_ref().is_some_and(same_for_both),
                AccessKind::Atomic => {
                    operands.iter().all(|e| same_for_both(e))
                        && k.atomic_ops
                            .iter()
                            .filter(|o| o.access == a.id)
                            .all(|o| o.operands.iter().all(Option::is_some))
                }
            };
            uses_ok &= ok && same_for_both(&a.index) && same_for_both(&rest_of_guard(&a.guard));
        }
        // The two threads exchange their results only when every
        // operation on the cell is the same function, made once.
        !used || (uses_ok && same_function && sites.len() == 1 && acc.loops.is_empty())
    }

    /// The launch of the concrete search, with a value for each parameter.
    fn search_launch(&self, opaque_truth: i64) -> Option<Launch> {
        let k = self.kernel;
        let block = match self.env.block_dim {
            Some(b) => b.map(i64::from),
            None => {
                let mut b = [1i64; 3];
                b[0] = i64::from(SMALL_BLOCK);
                b
            }
        };
        let grid = self
            .env
            .grid_dim
            .map(|g| g.map(i64::from))
            .unwrap_or([1; 3]);
        let mut launch = Launch {
            shape: LaunchShape { block, grid },
            params: Vec::new(),
            opaque_truth,
            opaque_comparison: self.opaque_comparison(),
            chose_truth: std::cell::Cell::new(false),
        };
        if launch.threads() > MAX_THREADS {
            return None;
        }
        // Parameters: the number of threads (a typical size `n`), within
        // the parameter's range.
        let mut params: HashSet<Var> = HashSet::new();
        let mut note = |e: &Expr| {
            e.for_each_var(&mut |v| {
                if matches!(v.kind, VarKind::Param { .. }) {
                    params.insert(v.clone());
                }
            })
        };
        for a in k.accesses() {
            note(&a.index);
            note(&a.guard);
            if let Some(v) = &a.value {
                note(v);
            }
        }
        for o in &k.atomic_ops {
            o.operands.iter().flatten().for_each(&mut note);
        }
        k.assumptions.iter().for_each(&mut note);
        let mut params: Vec<Var> = params.into_iter().collect();
        params.sort();
        let n = launch.threads();
        launch.params = params
            .into_iter()
            .map(|v| {
                let VarKind::Param { lo, hi } = v.kind else {
                    unreachable!("only parameters were collected")
                };
                (v, n.clamp(lo, hi))
            })
            .collect();
        Some(launch)
    }

    /// The concrete search for two schedules with different final memory:
    /// one input where every opaque comparison of the inputs holds (so
    /// that the threads it guards all reach their atomics and contend),
    /// then one where none does.
    fn search_schedules(&self) -> Option<Finding> {
        let k = self.kernel;
        if k.barriers().iter().any(|b| b.kind == BarrierKind::Grid) {
            return None;
        }
        let (mut tried, mut work) = (0, 0);
        for truth in [1, 0] {
            let launch = self.search_launch(truth)?;
            let events = self.thread_events(&launch)?;
            if let Some(f) = self.search_launch_schedules(&launch, &events, &mut tried, &mut work) {
                return Some(f);
            }
            if tried > MAX_SWAPS || work > MAX_WORK || !launch.chose_truth.get() {
                // The other input would run the same program.
                return None;
            }
        }
        None
    }

    /// The search on one launch and input: a base run (the threads taking
    /// turns), then each swap of two neighbouring operations of different
    /// threads on one cell that the barriers leave unordered.
    fn search_launch_schedules(
        &self,
        launch: &Launch,
        events: &[Vec<Event>],
        tried: &mut usize,
        work: &mut usize,
    ) -> Option<Finding> {
        let cost: usize = events.iter().map(Vec::len).sum();
        *work += cost;
        if *work > MAX_WORK {
            return None;
        }
        let base = self.run_schedule(launch, events, None)?;
        for (cell, order) in &base.orders {
            // Ends first: the first operation decides a first-wins pattern
            // (`atomicCAS`), the last one a last-wins pattern (`atomicExch`).
            let m = order.len();
            let pairs = m.saturating_sub(1);
            let ends_first = (0..pairs).map(|n| if n % 2 == 0 { n / 2 } else { pairs - 1 - n / 2 });
            for i in ends_first {
                // Three reorderings at each place, each a pair of
                // operations (s1 before s2 in the base run, after it in
                // the other): the neighbours swapped; the operation moved
                // past every later one (it becomes the last, as when its
                // thread is delayed); the next one moved before every
                // earlier one (it becomes the first). An order the
                // barriers or the threads' own program order forbid
                // cannot run (`run_schedule` answers `None`).
                let mut swapped = order[..=i + 1].to_vec();
                swapped.swap(i, i + 1);
                let mut delayed: Vec<Step> =
                    order[..i].iter().chain(&order[i + 1..]).copied().collect();
                delayed.push(order[i]);
                let hurried: Vec<Step> = std::iter::once(order[i + 1])
                    .chain(order[..=i].iter().copied())
                    .collect();
                let candidates = [
                    (swapped, order[i], order[i + 1]),
                    (delayed, order[i], order[m - 1]),
                    (hurried, order[0], order[i + 1]),
                ];
                for (n, (prefix, s1, s2)) in candidates.into_iter().enumerate() {
                    // A move by one place is the swap already tried.
                    let same_as_swap = n > 0 && (s1, s2) == (order[i], order[i + 1]);
                    if same_as_swap
                        || s1.0 == s2.0
                        || !self.unordered(launch, events, cell.0, s1, s2)
                    {
                        continue;
                    }
                    *tried += 1;
                    *work += cost;
                    if *tried > MAX_SWAPS || *work > MAX_WORK || self.cancelled() {
                        return None;
                    }
                    let forced = Forced {
                        cell: *cell,
                        prefix,
                    };
                    let Some(other) = self.run_schedule(launch, events, Some(&forced)) else {
                        continue;
                    };
                    let how = [
                        "the two swapped",
                        "the first delayed past every later operation on the cell",
                        "the second moved before every earlier operation on the cell",
                    ][n];
                    if let Some(f) =
                        self.difference(launch, events, &base, &other, *cell, (s1, s2), how)
                    {
                        return Some(f);
                    }
                }
            }
        }
        None
    }

    /// Whether the barriers leave two threads' operations unordered: one
    /// block and the same barrier interval, or two blocks on global memory.
    fn unordered(
        &self,
        launch: &Launch,
        events: &[Vec<Event>],
        array: ArrayId,
        (t1, e1): Step,
        (t2, e2): Step,
    ) -> bool {
        if launch.block_of(t1) != launch.block_of(t2) {
            return self.kernel.arrays[array].space == MemorySpace::Global;
        }
        events[t1][e1].epoch == events[t2][e2].epoch
    }

    /// The lookup of thread `t`'s values (its atomic results, the values
    /// its reads returned and its loop counters, as far as they are known).
    fn thread_value(
        &self,
        launch: &Launch,
        t: usize,
        results: &HashMap<Var, i64>,
        v: &Var,
    ) -> Option<i64> {
        let (tid, bid) = launch.coords(t as i64);
        if let Some(x) = launch.shape.builtin(v.kind, tid, bid) {
            return Some(x);
        }
        match v.kind {
            VarKind::Param { .. } => launch.params.iter().find(|(p, _)| p == v).map(|(_, x)| *x),
            _ => results
                .get(v)
                .copied()
                .or_else(|| self.input_value(launch, t, results, v))
                .or_else(|| self.chosen_truth(launch, v)),
        }
    }

    /// The opaque comparison whose truth the search may choose: only
    /// when the kernel makes exactly one (by name, whatever the iteration),
    /// so that no two choices can contradict each other (`x > 0` and
    /// `x < 0` both true), and it compares values that are the same in
    /// every schedule: no atomic's result flows into an unknown, and every
    /// array the kernel reads is one it never writes (the compared values
    /// come from the inputs, the launch and the thread).
    fn opaque_comparison(&self) -> Option<String> {
        let k = self.kernel;
        let reads_written = k
            .read_values
            .iter()
            .any(|(_, id)| self.accesses.get(id).is_none_or(|a| self.written(a.array)));
        if reads_written || k.atomic_results_summarised {
            return None;
        }
        let mut names: BTreeSet<String> = BTreeSet::new();
        let mut note = |e: &Expr| {
            e.for_each_var(&mut |v| {
                if matches!(v.kind, VarKind::Unknown { lo: 0, hi: 1, .. })
                    && v.name.starts_with("float")
                {
                    let base = symbols::split_iteration_tag(&v.name).map_or(&*v.name, |(b, _)| b);
                    names.insert(base.to_string());
                }
            })
        };
        for a in k.accesses() {
            note(&a.index);
            note(&a.guard);
            a.value.iter().for_each(&mut note);
        }
        for o in &k.atomic_ops {
            o.operands.iter().flatten().for_each(&mut note);
        }
        for b in k.barriers() {
            note(&b.guard);
        }
        walk(&k.body, &mut |s| {
            if let Stmt::Loop(l) = s {
                note(&l.guard);
            }
        });
        k.assumptions.iter().for_each(&mut note);
        if names.len() != 1 {
            return None;
        }
        names.pop_first()
    }

    /// The truth of an opaque comparison of the inputs (`in[i] > 0.0f`:
    /// floating point is outside the model): the search's choice, the same
    /// for every thread and every schedule. Not for a value fixed by code
    /// nobody checked (a function without a body), nor for an atomic's
    /// result or a read of memory the kernel writes (the run has those).
    fn chosen_truth(&self, launch: &Launch, v: &Var) -> Option<i64> {
        let VarKind::Unknown { lo: 0, hi: 1, .. } = v.kind else {
            return None;
        };
        let base = symbols::split_iteration_tag(&v.name).map_or(&*v.name, |(b, _)| b);
        if launch.opaque_comparison.as_deref() != Some(base) {
            return None;
        }
        launch.chose_truth.set(true);
        Some(launch.opaque_truth)
    }

    /// A value read from an input array (one the kernel never writes nor
    /// updates atomically): the search's input holds `index + 1` in each
    /// cell, the same content in every schedule. Any other read's value is
    /// not one the search has.
    fn input_value(
        &self,
        launch: &Launch,
        t: usize,
        results: &HashMap<Var, i64>,
        v: &Var,
    ) -> Option<i64> {
        let k = self.kernel;
        let (_, read) = k.read_values.iter().find(|(r, _)| r == v)?;
        let a = self.accesses.get(read)?;
        if self.written(a.array) || k.arrays[a.array].byte_addressed {
            return None;
        }
        if k.arrays[a.array].space != MemorySpace::Global {
            return None;
        }
        self.eval_for(launch, t, results, &a.index)?.checked_add(1)
    }

    /// Whether the kernel writes `array` (plainly or atomically).
    fn written(&self, array: ArrayId) -> bool {
        self.accesses
            .values()
            .any(|b| b.array == array && b.kind != AccessKind::Read)
    }

    fn eval_for(
        &self,
        launch: &Launch,
        t: usize,
        results: &HashMap<Var, i64>,
        e: &Expr,
    ) -> Option<i64> {
        let lookup = |v: &Var| self.thread_value(launch, t, results, v);
        eval_expr(e, &lookup, self.env.bitvector)
    }

    /// Each thread's writes, atomic operations and reads of memory the
    /// kernel writes, with the barrier intervals they are in; loops are
    /// unrolled (their conditions must be values of the launch), or
    /// `None` when the kernel is outside what the search runs.
    fn thread_events(&self, launch: &Launch) -> Option<Vec<Vec<Event>>> {
        let k = self.kernel;
        let empty = HashMap::new();
        let mut out = Vec::new();
        let mut total = 0;
        for t in 0..launch.threads() as usize {
            for a in &k.assumptions {
                if self.eval_for(launch, t, &empty, a)? == 0 {
                    return None;
                }
            }
            let mut unroll = Unroll {
                launch,
                thread: t,
                counters: HashMap::new(),
                epoch: 0,
                events: Vec::new(),
            };
            self.unroll(&mut unroll, &k.body)?;
            total += unroll.events.len();
            if total > MAX_EVENTS {
                return None;
            }
            out.push(unroll.events);
        }
        Some(out)
    }

    /// Appends the events of `stmts` for one thread; `Some(true)` when a
    /// `break` of the innermost loop was taken.
    fn unroll(&self, u: &mut Unroll, stmts: &[Stmt]) -> Option<bool> {
        let k = self.kernel;
        let mut left = false;
        for s in stmts {
            match s {
                Stmt::Access(a) => {
                    let atomic = k.atomic_ops.iter().position(|o| o.access == a.id);
                    let read = match a.kind {
                        AccessKind::Read if self.written(a.array) => k
                            .read_values
                            .iter()
                            .find(|(_, id)| *id == a.id)
                            .map(|(v, _)| v.clone()),
                        _ => None,
                    };
                    if a.kind == AccessKind::Read && read.is_none() {
                        continue;
                    }
                    let mut counters: Vec<(Var, i64)> =
                        u.counters.iter().map(|(v, c)| (v.clone(), *c)).collect();
                    counters.sort();
                    u.events.push(Event {
                        epoch: u.epoch,
                        atomic,
                        access: a.id,
                        read,
                        counters,
                    });
                    if u.events.len() > MAX_EVENTS_PER_THREAD {
                        return None;
                    }
                }
                Stmt::Barrier(b) => {
                    // Whether this thread passes it: a barrier reached
                    // by some threads only is the divergence check's.
                    if self.eval_for(u.launch, u.thread, &u.counters, &b.guard)? != 0 {
                        u.epoch += 1;
                    }
                }
                Stmt::If(a, b) => {
                    left |= self.unroll(u, a)?;
                    left |= self.unroll(u, b)?;
                }
                Stmt::LoopExit(g) => {
                    left |= self.eval_for(u.launch, u.thread, &u.counters, g)? != 0;
                }
                Stmt::Loop(l) => {
                    let mut c = 0i64;
                    loop {
                        u.counters.insert(l.counter.clone(), c);
                        let go_on = self.eval_for(u.launch, u.thread, &u.counters, &l.guard)? != 0;
                        if !go_on {
                            // The condition's own accesses run on the
                            // final, failing check too.
                            self.unroll(u, &l.body[..l.cond_len.min(l.body.len())])?;
                            break;
                        }
                        if self.unroll(u, &l.body)? {
                            break;
                        }
                        c += 1;
                        if c as usize > MAX_EVENTS_PER_THREAD {
                            return None;
                        }
                    }
                    u.counters.remove(&l.counter);
                }
            }
        }
        Some(left)
    }

    /// One run of the launch: the threads in rounds, one event each per
    /// round, as far as the barriers let them, except that on `forced`'s cell the first
    /// operations take the given order. `None`: the forced order cannot
    /// happen, or an operation's guard, cell or operand is not a value.
    fn run_schedule(
        &self,
        launch: &Launch,
        events: &[Vec<Event>],
        forced: Option<&Forced>,
    ) -> Option<Run> {
        let k = self.kernel;
        let n = events.len();
        let mut next = vec![0usize; n];
        let mut results: Vec<HashMap<Var, i64>> = vec![HashMap::new(); n];
        let mut run = Run {
            memory: BTreeMap::new(),
            orders: BTreeMap::new(),
            returned: HashMap::new(),
            writers: BTreeMap::new(),
        };
        let mut cells: HashMap<Cell, i64> = HashMap::new();
        // The epoch each thread is in; a thread may enter epoch e once
        // every thread of its block has finished the epochs before it.
        // (Computed once per round: a stale minimum only holds threads
        // back longer, it never lets one through early.)
        let blocks = launch.shape.grid.iter().product::<i64>() as usize;
        loop {
            let mut progressed = false;
            let mut lowest = vec![u32::MAX; blocks];
            for t in 0..n {
                if let Some(e) = events[t].get(next[t]) {
                    let b = launch.block_of(t) as usize;
                    lowest[b] = lowest[b].min(e.epoch);
                }
            }
            for t in 0..n {
                let ei = next[t];
                let Some(e) = events[t].get(ei) else {
                    continue;
                };
                if lowest[launch.block_of(t) as usize] < e.epoch {
                    continue;
                }
                for (c, v) in &e.counters {
                    results[t].insert(c.clone(), *v);
                }
                let a = self.accesses[&e.access];
                let guard = self.eval_for(launch, t, &results[t], &a.guard);
                let index = self.eval_for(launch, t, &results[t], &a.index);
                if let Some(r) = &e.read {
                    // A read of memory the kernel writes sees the cell's
                    // content at this point of the run (the race check
                    // answers for reads that a write of another thread
                    // could meet unordered): never set, the input (0).
                    let seen = match (guard, index) {
                        (Some(g), Some(i)) if g != 0 => {
                            let cell = self.cell(launch, t, a.array, i);
                            match cells.get(&cell) {
                                Some(v) => Some(*v),
                                None if run.memory.contains_key(&cell) => None,
                                None => Some(0),
                            }
                        }
                        _ => None,
                    };
                    match seen {
                        Some(v) => results[t].insert(r.clone(), v),
                        None => results[t].remove(r),
                    };
                    next[t] += 1;
                    progressed = true;
                    continue;
                }
                let Some(o) = e.atomic else {
                    // A plain write: applied when its place is known; a
                    // value the model does not have is `None`.
                    if let (Some(g), Some(i)) = (guard, index) {
                        if g != 0 {
                            let v = a
                                .value
                                .as_ref()
                                .and_then(|v| self.eval_for(launch, t, &results[t], v));
                            let cell = self.cell(launch, t, a.array, i);
                            run.memory.insert(cell, v);
                            run.writers.insert(cell, (t, a.id));
                            match v {
                                Some(v) => cells.insert(cell, v),
                                None => cells.remove(&cell),
                            };
                        }
                    } else if self.mentions_result(a) {
                        return None;
                    }
                    next[t] += 1;
                    progressed = true;
                    continue;
                };
                if guard? == 0 {
                    next[t] += 1;
                    progressed = true;
                    continue;
                }
                let cell = self.cell(launch, t, a.array, index?);
                if let Some(f) = forced.filter(|f| f.cell == cell) {
                    let done = run.orders.get(&cell).map_or(0, Vec::len);
                    if done < f.prefix.len() && f.prefix[done] != (t, ei) {
                        continue;
                    }
                }
                let op = &k.atomic_ops[o];
                let operands: Option<Vec<i64>> = op
                    .operands
                    .iter()
                    .map(|x| {
                        x.as_ref()
                            .and_then(|x| self.eval_for(launch, t, &results[t], x))
                    })
                    .collect();
                // A cell whose content is not a value of the model (never
                // written: the input, taken as 0; written with an unknown
                // value: outside the search).
                let old = match cells.get(&cell) {
                    Some(v) => *v,
                    None if run.memory.contains_key(&cell) => return None,
                    None => 0,
                };
                let (new, ret) = apply_atomic(&op.op, old, &operands?)?;
                cells.insert(cell, new);
                run.memory.insert(cell, Some(new));
                run.writers.insert(cell, (t, a.id));
                run.orders.entry(cell).or_default().push((t, ei));
                run.returned.insert((t, ei), ret);
                if let Some(r) = &op.result {
                    results[t].insert(r.clone(), ret);
                }
                next[t] += 1;
                progressed = true;
            }
            if (0..n).all(|t| next[t] == events[t].len()) {
                break;
            }
            if !progressed {
                return None;
            }
        }
        Some(run)
    }

    /// Where thread `t`'s access to `array[index]` lands.
    fn cell(&self, launch: &Launch, t: usize, array: ArrayId, index: i64) -> Cell {
        let block = match self.kernel.arrays[array].space {
            MemorySpace::Shared => launch.block_of(t),
            MemorySpace::Global => -1,
        };
        (array, block, index)
    }

    fn mentions_result(&self, a: &Access) -> bool {
        let k = self.kernel;
        let results: Vec<&Var> = k
            .atomic_ops
            .iter()
            .filter_map(|o| o.result.as_ref())
            .chain(k.read_values.iter().map(|(v, _)| v))
            .collect();
        [&a.index, &a.guard]
            .into_iter()
            .chain(a.value.as_ref())
            .any(|e| e.mentions(&mut |v| results.contains(&v)))
    }

    /// The finding when the two runs end in different memory: the two
    /// schedules (which of the two swapped operations ran first, what
    /// each returned), the location that ends differently (global memory,
    /// which outlives the kernel, before a block's `__shared__` memory)
    /// and the inputs the search chose.
    #[allow(clippy::too_many_arguments)]
    fn difference(
        &self,
        launch: &Launch,
        events: &[Vec<Event>],
        base: &Run,
        other: &Run,
        cell: Cell,
        (first, second): (Step, Step),
        how: &str,
    ) -> Option<Finding> {
        let k = self.kernel;
        let mut locations: Vec<&Cell> = base.memory.keys().chain(other.memory.keys()).collect();
        locations.sort_by_key(|l| (l.1 != -1, **l));
        locations.dedup();
        // A location written with a value the model has in both runs
        // (never written: the input, 0 in both).
        let value = |run: &Run, l: &Cell| match run.memory.get(l) {
            Some(v) => *v,
            None => Some(0),
        };
        let (loc, v1, v2) = locations.into_iter().find_map(|l| {
            let (a, b) = (value(base, l)?, value(other, l)?);
            (a != b).then_some((*l, a, b))
        })?;
        let name = |t: usize| {
            let (tid, bid) = launch.coords(t as i64);
            format!(
                "thread ({},{},{}) of block ({},{},{})",
                tid[0], tid[1], tid[2], bid[0], bid[1], bid[2]
            )
        };
        let op_of = |s: Step| &k.atomic_ops[events[s.0][s.1].atomic.expect("an atomic step")];
        let op = op_of(first);
        let line = |s: Step| op_of(s).span.start.line + 1;
        let place = |l: &Cell| match l.1 {
            -1 => format!("`{}[{}]`", k.arrays[l.0].name, l.2),
            b => {
                let (_, bid) = launch.coords(b * launch.per_block());
                format!(
                    "`{}[{}]` of block ({},{},{})",
                    k.arrays[l.0].name, l.2, bid[0], bid[1], bid[2]
                )
            }
        };
        let gets = |run: &Run, s: Step| {
            run.returned
                .get(&s)
                .map_or(String::new(), |r| format!(" and gets {r}"))
        };
        let schedule = |run: &Run, a: Step, b: Step, v: i64| {
            let b_op = if op_of(b).text == op_of(a).text {
                "it".to_string()
            } else {
                format!("`{}`", op_of(b).text)
            };
            format!(
                "{} runs `{}` (line {}) first{}, then {} runs {b_op} (line {}){}: {} ends {v}",
                name(a.0),
                op_of(a).text,
                line(a),
                gets(run, a),
                name(b.0),
                line(b),
                gets(run, b),
                place(&loc),
            )
        };
        let schedule_1 = format!(
            "schedule 1 (the threads take turns): {}",
            schedule(base, first, second, v1)
        );
        let schedule_2 = format!(
            "schedule 2 (schedule 1 with {how}): {}",
            schedule(other, second, first, v2)
        );
        let mut inputs = String::from(
            "memory the kernel writes starts at 0 (before its own writes), an array it only reads holds index + 1",
        );
        if launch.chose_truth.get() {
            inputs.push_str(if launch.opaque_truth != 0 {
                ", and every floating-point comparison of the inputs holds for every thread"
            } else {
                ", and no floating-point comparison of the inputs holds for any thread"
            });
        }
        let inputs = format!("initial memory: {inputs}");
        let mut f = Finding::new(
            FindingKind::ScheduleDependent,
            Some(&k.name),
            op.span,
            format!(
                "schedule-dependent: the final memory depends on the order of the atomics on {}: {schedule_1}; {schedule_2} ({inputs})",
                place(&cell),
            ),
        );
        f.headline = Some(format!(
            "{} depends on the order of the atomics",
            place(&loc)
        ));
        f.notes = vec![schedule_1, schedule_2, inputs];
        if let Some((_, acc)) = base.writers.get(&loc).or_else(|| other.writers.get(&loc)) {
            let a = self.accesses[acc];
            if a.span != op.span {
                f.related.push(Related {
                    span: a.span,
                    message: format!("writes {} differently in the two schedules", place(&loc)),
                });
            }
        }
        let thread = |t: usize| {
            let (tid, bid) = launch.coords(t as i64);
            WitnessThread {
                thread_idx: tid,
                block_idx: bid,
            }
        };
        let mut values = Vec::new();
        for (d, dim) in DIMS.iter().enumerate() {
            values.push((format!("blockDim.{dim}"), launch.shape.block[d]));
        }
        for (d, dim) in DIMS.iter().enumerate() {
            values.push((format!("gridDim.{dim}"), launch.shape.grid[d]));
        }
        for (p, v) in &launch.params {
            values.push((p.name.to_string(), *v));
        }
        f.witness = Some(Witness {
            threads: vec![thread(first.0), thread(second.0)],
            values,
        });
        Some(f)
    }
}

/// One thread's walk through the kernel's statements, unrolling loops.
struct Unroll<'l> {
    launch: &'l Launch,
    thread: usize,
    /// The enclosing loops' counters.
    counters: HashMap<Var, i64>,
    epoch: u32,
    events: Vec<Event>,
}

/// One atomic operation on a cell holding `old`: (new content, result).
/// `None` for an operation the search does not run.
fn apply_atomic(op: &str, old: i64, operands: &[i64]) -> Option<(i64, i64)> {
    let a = operands.first().copied();
    let new = match op {
        "atomicAdd" => old.checked_add(a?)?,
        "atomicSub" => old.checked_sub(a?)?,
        "atomicExch" => a?,
        // libcu++'s `load()`: reads the cell, changes nothing.
        "atomicLoad" => old,
        "atomicMax" => old.max(a?),
        "atomicMin" => old.min(a?),
        "atomicAnd" => old & a?,
        "atomicOr" => old | a?,
        "atomicXor" => old ^ a?,
        // Unsigned wrap-around counters (`((old >= n) ? 0 : old + 1)`).
        "atomicInc" if old >= 0 => {
            if old >= a? {
                0
            } else {
                old + 1
            }
        }
        "atomicDec" if old >= 0 => {
            if old == 0 || old > a? {
                a?
            } else {
                old - 1
            }
        }
        "atomicCAS" => {
            if old == a? {
                *operands.get(1)?
            } else {
                old
            }
        }
        _ => return None,
    };
    Some((new, old))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_operations_return_the_old_content() {
        assert_eq!(apply_atomic("atomicAdd", 3, &[2]), Some((5, 3)));
        assert_eq!(apply_atomic("atomicExch", 3, &[7]), Some((7, 3)));
        assert_eq!(apply_atomic("atomicCAS", 0, &[0, 1]), Some((1, 0)));
        assert_eq!(apply_atomic("atomicCAS", 1, &[0, 1]), Some((1, 1)));
        assert_eq!(apply_atomic("atomicInc", 4, &[4]), Some((0, 4)));
        assert_eq!(apply_atomic("atomicMax", 4, &[9]), Some((9, 4)));
        assert_eq!(apply_atomic("atomicFoo", 4, &[9]), None);
    }

    fn kinds(src: &str) -> Vec<FindingKind> {
        let options = crate::options::Options {
            deterministic: true,
            block_dim: Some([8, 1, 1]),
            grid_dim: Some([2, 1, 1]),
            ..Default::default()
        };
        crate::analyze_source(src, &options)
            .findings
            .into_iter()
            .map(|f| f.kind)
            .filter(|k| matches!(k, FindingKind::ScheduleDependent | FindingKind::Unknown))
            .collect()
    }

    #[test]
    fn a_result_passed_through_a_shuffle_is_never_cleared() {
        // The shuffle's value is an unknown of the model: the exchange
        // argument must not read "no write mentions the ticket" as unused.
        let src = "__global__ void k(int *n, int *out) {\n\
            int slot = atomicAdd(n, 1);\n\
            int v = __shfl_sync(0xffffffff, slot, 0);\n\
            out[blockIdx.x * 8 + threadIdx.x] = v;\n}\n";
        assert_eq!(kinds(src), vec![FindingKind::Unknown]);
    }

    #[test]
    fn a_discarded_commutative_update_needs_no_search() {
        let src = "__global__ void k(int *n, const int *in) {\n\
            atomicAdd(n, in[blockIdx.x * 8 + threadIdx.x]);\n}\n";
        assert_eq!(kinds(src), Vec::<FindingKind>::new());
    }

    #[test]
    fn the_check_runs_for_the_kernels_asked_for() {
        let src = "__global__ void winner(int *w) { atomicExch(w, (int)threadIdx.x); }\n\
                   __global__ void other(int *w) { atomicExch(w, (int)threadIdx.x); }\n";
        let options = crate::options::Options {
            deterministic_kernels: vec!["win*".into()],
            block_dim: Some([8, 1, 1]),
            grid_dim: Some([1, 1, 1]),
            ..Default::default()
        };
        let flagged: Vec<Option<String>> = crate::analyze_source(src, &options)
            .findings
            .into_iter()
            .filter(|f| f.kind == FindingKind::ScheduleDependent)
            .map(|f| f.kernel)
            .collect();
        assert_eq!(flagged, vec![Some("winner".to_string())]);
    }

    #[test]
    fn two_opaque_comparisons_are_never_chosen_together() {
        // All true would run both exchanges in every thread, an input no
        // array gives (`x > 0` and `x < 0`): the search chooses no truth
        // and finds nothing, so the check says unknown.
        let src = "__global__ void k(int *w, const float *in) {\n\
            float x = in[blockIdx.x * 8 + threadIdx.x];\n\
            if (x > 0.0f) atomicExch(w, 1);\n\
            if (x < 0.0f) atomicExch(w, 2);\n}\n";
        assert_eq!(kinds(src), vec![FindingKind::Unknown]);
        // One comparison: every thread exchanges, in either order.
        let src = "__global__ void k(int *w, const float *in) {\n\
            float x = in[blockIdx.x * 8 + threadIdx.x];\n\
            if (x > 0.0f) atomicExch(w, (int)threadIdx.x);\n}\n";
        assert_eq!(kinds(src), vec![FindingKind::ScheduleDependent]);
    }

    #[test]
    fn barriers_separate_exchanges_of_different_constants() {
        // Each block's own cell: proven. One cell for every block: the
        // barrier orders one block only, so the argument does not apply.
        let own = "__global__ void k(int *p) {\n\
            atomicExch(&p[blockIdx.x], 1);\n__syncthreads();\n\
            atomicExch(&p[blockIdx.x], 2);\n}\n";
        assert_eq!(kinds(own), Vec::<FindingKind>::new());
        let without = own.replace("__syncthreads();", "");
        assert_eq!(kinds(&without), vec![FindingKind::Unknown]);
        let one_cell = own.replace("&p[blockIdx.x]", "p");
        assert_eq!(kinds(&one_cell), vec![FindingKind::Unknown]);
    }

    #[test]
    fn families_commute_within_themselves_only() {
        assert_eq!(family("atomicAdd"), family("atomicSub"));
        assert_ne!(family("atomicAdd"), family("atomicMax"));
        assert_eq!(family("atomicExch"), None);
        assert_eq!(family("atomicCAS"), None);
    }
}
