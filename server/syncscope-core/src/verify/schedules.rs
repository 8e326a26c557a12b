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
use std::collections::{BTreeMap, HashMap, HashSet};

/// The concrete search runs launches of at most this many threads.
const MAX_THREADS: i64 = 1024;
/// Swaps tried per kernel (each one runs the whole launch again).
const MAX_SWAPS: usize = 512;
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
/// the index.
type Cell = (ArrayId, i64, i64);

/// One thread's event in the concrete run.
#[derive(Clone)]
struct Event {
    epoch: u32,
    /// An atomic operation (index into `Kernel::atomic_ops`) or a plain write.
    atomic: Option<usize>,
    access: usize,
}

/// The outcome of one concrete run.
struct Run {
    /// Final memory: (array, index) → value (`None`: not a value the model has).
    memory: BTreeMap<Cell, Option<i64>>,
    /// Per cell, the atomic operations in the order they ran: (thread, op).
    orders: BTreeMap<Cell, Vec<(usize, usize)>>,
    /// Who wrote each location last (thread, access), for messages.
    writers: BTreeMap<Cell, (usize, usize)>,
}

/// A swap to force: on `cell`, the first `prefix` operations run in this order.
struct Forced {
    cell: Cell,
    prefix: Vec<(usize, usize)>,
}

/// The launch the concrete search runs (its threads' coordinates:
/// `LaunchShape`) and its parameters.
struct Launch {
    shape: LaunchShape,
    params: Vec<(Var, i64)>,
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

impl<'k> KernelContext<'k> {
    /// The `--deterministic` check: no finding when every atomic operation
    /// is order-independent, a `schedule-dependent` finding with two
    /// schedules, or `unknown` when neither could be shown.
    pub(super) fn check_schedules(&mut self) -> Vec<Finding> {
        let k = self.kernel;
        let undecided: Vec<&AtomicOp> = k
            .atomic_ops
            .iter()
            .filter(|op| !self.order_independent(op))
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

    /// Whether swapping two threads' `op` never changes the final memory
    /// (the exchange argument of the module comment).
    fn order_independent(&self, op: &AtomicOp) -> bool {
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
        let sites: Vec<&AtomicOp> = k
            .atomic_ops
            .iter()
            .filter(|o| self.accesses.get(&o.access).map(|a| a.array) == Some(acc.array))
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
    fn search_launch(&self) -> Option<Launch> {
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

    /// The concrete search for two schedules with different final memory.
    fn search_schedules(&self) -> Option<Finding> {
        let k = self.kernel;
        if k.barriers().iter().any(|b| b.kind == BarrierKind::Grid) {
            return None;
        }
        let launch = self.search_launch()?;
        let events = self.thread_events(&launch)?;
        let base = self.run_schedule(&launch, &events, None)?;
        let mut tried = 0;
        for (cell, order) in &base.orders {
            // Ends first: the first operation decides a first-wins pattern
            // (`atomicCAS`), the last one a last-wins pattern (`atomicExch`).
            let pairs = order.len().saturating_sub(1);
            let ends_first = (0..pairs).map(|n| if n % 2 == 0 { n / 2 } else { pairs - 1 - n / 2 });
            for i in ends_first {
                let ((t1, o1), (t2, o2)) = (order[i], order[i + 1]);
                if t1 == t2 || !self.unordered(&launch, &events, cell.0, (t1, o1), (t2, o2)) {
                    continue;
                }
                tried += 1;
                if tried > MAX_SWAPS || self.cancelled() {
                    return None;
                }
                let mut prefix = order[..=i + 1].to_vec();
                prefix.swap(i, i + 1);
                let forced = Forced {
                    cell: *cell,
                    prefix,
                };
                let Some(other) = self.run_schedule(&launch, &events, Some(&forced)) else {
                    continue;
                };
                if let Some(f) = self.difference(&launch, &base, &other, *cell, (t1, o1), (t2, o2))
                {
                    return Some(f);
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
        (t1, o1): (usize, usize),
        (t2, o2): (usize, usize),
    ) -> bool {
        let epoch = |t: usize, o: usize| {
            events[t]
                .iter()
                .find(|e| e.atomic == Some(o))
                .map(|e| e.epoch)
        };
        if launch.block_of(t1) != launch.block_of(t2) {
            return self.kernel.arrays[array].space == MemorySpace::Global;
        }
        epoch(t1, o1).is_some() && epoch(t1, o1) == epoch(t2, o2)
    }

    /// The lookup of thread `t`'s values (its atomic results as far as
    /// they are known).
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
                .or_else(|| self.input_value(launch, t, results, v)),
        }
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
        let array = &k.arrays[a.array];
        let written = self
            .accesses
            .values()
            .any(|b| b.array == a.array && b.kind != AccessKind::Read);
        if written || array.byte_addressed || array.space != MemorySpace::Global {
            return None;
        }
        self.eval_for(launch, t, results, &a.index)?.checked_add(1)
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

    /// Each thread's writes and atomic operations at the kernel's top
    /// level with the barrier intervals they are in, or `None` when the
    /// kernel is outside what the search runs (atomics or uses of their
    /// results in loops, assumptions it cannot check on the launch).
    fn thread_events(&self, launch: &Launch) -> Option<Vec<Vec<Event>>> {
        let k = self.kernel;
        let results: HashSet<&Var> = k
            .atomic_ops
            .iter()
            .filter_map(|o| o.result.as_ref())
            .collect();
        let op_of: HashMap<usize, usize> = k
            .atomic_ops
            .iter()
            .enumerate()
            .map(|(i, o)| (o.access, i))
            .collect();
        let empty = HashMap::new();
        let mut out = Vec::new();
        for t in 0..launch.threads() as usize {
            for a in &k.assumptions {
                if self.eval_for(launch, t, &empty, a)? == 0 {
                    return None;
                }
            }
            let mut events = Vec::new();
            let mut epoch = 0u32;
            let mut stack: Vec<&Stmt> = k.body.iter().rev().collect();
            while let Some(s) = stack.pop() {
                match s {
                    Stmt::Access(a) if a.kind != AccessKind::Read => events.push(Event {
                        epoch,
                        atomic: op_of.get(&a.id).copied(),
                        access: a.id,
                    }),
                    Stmt::Access(_) | Stmt::LoopExit(_) => {}
                    Stmt::Barrier(b) => {
                        // Whether this thread passes it: a barrier reached
                        // by some threads only is the divergence check's.
                        if self.eval_for(launch, t, &empty, &b.guard)? != 0 {
                            epoch += 1;
                        }
                    }
                    Stmt::If(a, b) => {
                        stack.extend(b.iter().rev());
                        stack.extend(a.iter().rev());
                    }
                    Stmt::Loop(l) => {
                        let mut inside = false;
                        walk(&l.body, &mut |s| {
                            if let Stmt::Access(a) = s {
                                inside |= op_of.contains_key(&a.id)
                                    || [&a.index, &a.guard]
                                        .into_iter()
                                        .chain(a.value.as_ref())
                                        .any(|e| e.mentions(&mut |v| results.contains(v)));
                            }
                        });
                        if inside {
                            return None;
                        }
                        // Its barriers order what follows: a later interval.
                        let mut barriers = false;
                        walk(&l.body, &mut |s| barriers |= matches!(s, Stmt::Barrier(_)));
                        epoch += u32::from(barriers);
                    }
                }
            }
            out.push(events);
        }
        Some(out)
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
                let Some(e) = events[t].get(next[t]) else {
                    continue;
                };
                if lowest[launch.block_of(t) as usize] < e.epoch {
                    continue;
                }
                let a = self.accesses[&e.access];
                let guard = self.eval_for(launch, t, &results[t], &a.guard);
                let index = self.eval_for(launch, t, &results[t], &a.index);
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
                    if done < f.prefix.len() && f.prefix[done] != (t, o) {
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
                run.orders.entry(cell).or_default().push((t, o));
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
        let results: Vec<&Var> = self
            .kernel
            .atomic_ops
            .iter()
            .filter_map(|o| o.result.as_ref())
            .collect();
        [&a.index, &a.guard]
            .into_iter()
            .chain(a.value.as_ref())
            .any(|e| e.mentions(&mut |v| results.contains(&v)))
    }

    /// The finding when the two runs end in different memory.
    fn difference(
        &self,
        launch: &Launch,
        base: &Run,
        other: &Run,
        cell: Cell,
        first: (usize, usize),
        second: (usize, usize),
    ) -> Option<Finding> {
        let k = self.kernel;
        let locations: std::collections::BTreeSet<&Cell> =
            base.memory.keys().chain(other.memory.keys()).collect();
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
        let op = &k.atomic_ops[first.1];
        let line = |o: usize| k.atomic_ops[o].span.start.line + 1;
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
        let mut f = Finding::new(
            FindingKind::ScheduleDependent,
            Some(&k.name),
            op.span,
            format!(
                "schedule-dependent: the final memory depends on the order of the atomics on {}: schedule 1: {} (line {}) then {} (line {}) ends with {} = {v1}; schedule 2: {} then {} ends with {} = {v2} (memory the kernel does not set starts at 0; an array it only reads holds index + 1)",
                place(&cell),
                name(first.0),
                line(first.1),
                name(second.0),
                line(second.1),
                place(&loc),
                name(second.0),
                name(first.0),
                place(&loc),
            ),
        );
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
    fn families_commute_within_themselves_only() {
        assert_eq!(family("atomicAdd"), family("atomicSub"));
        assert_ne!(family("atomicAdd"), family("atomicMax"));
        assert_eq!(family("atomicExch"), None);
        assert_eq!(family("atomicCAS"), None);
    }
}
