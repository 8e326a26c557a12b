//! A block-wide sum that ends in warp shuffles (`acc += s[t + 32]`, then
//! `acc += __shfl_down_sync(mask, acc, d)` for d = 16 .. 1), under a
//! launch whose block size is one constant N (a `switch (threads)` site,
//! `blockDim.x == 256`): every thread's control flow is then fixed, so the
//! block is run once, all N threads in lockstep (a statement, or a loop
//! iteration, at a time for every thread), with values kept as sums of
//! terms, each term a value one thread computed from its inputs alone.
//! Shared cells hold such sums, a loop's register its sum at each
//! iteration, and a shuffle gives the sum its source lane holds at the
//! same iteration (`Kernel::shuffles`): lane `l + d` of the segment, the
//! lane's own value when that falls outside it (CUDA's `__shfl_down_sync`).
//!
//! Why lockstep is the kernel's result: `check` verified both versions
//! race-free and free of barrier divergence, so every schedule gives the
//! same memory; lockstep is one schedule (all threads reach each barrier
//! together), and it is the one in which a shuffle's lanes exchange their
//! values (the shuffle synchronises them).
//!
//! When the value the kernel writes is, at each writing thread, the sum
//! of one term `E` over the threads 0 .. N-1, each once, the kernel is
//! replaced (for the proof only) by one that computes that sum in a loop
//! (`acc = 0; for (k = 0; k < N; k++) acc += E[threadIdx.x := k]`), which
//! [`super::assoc`] reads as a sum. Nothing is assumed: a control
//! condition that depends on data, a shuffle that reads a lane of no
//! thread or one that does not run it (undefined in CUDA), a sum that
//! misses a thread or counts one twice, are each a reason why not.

use super::Fixed;
use crate::model::{
    Access, AccessKind, BinOp, Expr, Fold, Kernel, Loop, MemorySpace, Shuffle, Stmt, Var, VarKind,
};
use std::collections::HashMap;

/// The most threads of a block run (the hardware's limit).
const MAX_THREADS: i64 = 1024;

/// The most iterations of one loop run.
const MAX_ITERATIONS: i64 = 64;

/// A value during the run.
#[derive(Clone, Debug)]
enum Val {
    Int(i64),
    /// A sum of terms: (the thread, the term's expression at that thread).
    Sum(Vec<(u32, Expr)>),
    /// A value of the inputs alone (global memory the kernel does not
    /// write, parameters, the block's index): one term when added.
    Input,
    /// No defined value, and why.
    Undefined(String),
}

/// Why a block is not run.
pub(crate) struct NotRun {
    pub reason: String,
    /// The reason is a shuffle reading the register of a lane that no
    /// thread of the block is: the result is undefined in CUDA.
    pub undefined: bool,
}

struct Run<'k> {
    k: &'k Kernel,
    n: i64,
    env: Vec<HashMap<Var, Val>>,
    shared: HashMap<(usize, i64), Val>,
    counters: HashMap<Var, i64>,
    shuffles: HashMap<&'k Var, &'k Shuffle>,
    /// Variables whose value the run gives (reads of shared memory, folds,
    /// shuffles): without one they are undefined, never inputs.
    tracked: std::collections::HashSet<&'k Var>,
    written: Vec<bool>,
    /// The values of reads (outside loops) of global arrays the kernel
    /// does not write: values of the inputs.
    inputs: std::collections::HashSet<&'k Var>,
    /// Whether a loop's folds are taking their next values: the one point
    /// where a shuffle is followed (all lanes at the same iteration, the
    /// shuffle's source as it is in that iteration).
    exchanging: std::cell::Cell<bool>,
}

fn is_float_zero(v: &Var) -> bool {
    crate::equiv::float_literal(v) == Some(0)
}

impl<'k> Run<'k> {
    fn var(&self, v: &Var, t: u32) -> Val {
        if let Some(x) = self.env[t as usize].get(v) {
            return x.clone();
        }
        match v.kind {
            VarKind::ThreadIdx(0) => Val::Int(t as i64),
            VarKind::ThreadIdx(_) => Val::Int(0),
            VarKind::BlockDim(0) => Val::Int(self.n),
            VarKind::BlockDim(_) => Val::Int(1),
            VarKind::Counter { .. } => match self.counters.get(v) {
                Some(c) => Val::Int(*c),
                None => Val::Undefined(format!("the loop counter `{v}` outside its loop")),
            },
            VarKind::BlockIdx(_) | VarKind::GridDim(_) | VarKind::Param { .. } => Val::Input,
            _ if is_float_zero(v) => Val::Int(0),
            _ if crate::equiv::float_literal(v).is_some() => Val::Input,
            _ if self.shuffles.contains_key(v) && self.exchanging.get() => {
                self.shuffle(self.shuffles[v], t)
            }
            _ if self.shuffles.contains_key(v) => Val::Undefined(format!(
                "`{}` is a warp shuffle whose value is used other than in a loop's accumulation",
                call_name(v)
            )),
            _ if self.tracked.contains(v) => {
                Val::Undefined(format!("`{v}` has no value at thread {t}"))
            }
            _ if self.inputs.contains(v) => Val::Input,
            _ if self.k.read_values.iter().any(|(r, _)| r == v) => {
                Val::Undefined(format!("`{v}` is not a value of the inputs"))
            }
            _ => Val::Undefined(format!("`{v}` is a value the model does not follow")),
        }
    }

    fn eval(&self, e: &Expr, t: u32) -> Val {
        match e {
            Expr::Const(c) => Val::Int(*c),
            Expr::Var(v) => self.var(v, t),
            Expr::Un(op, a) => match self.eval(a, t) {
                Val::Int(x) => match Expr::un(*op, Expr::Const(x)).as_const() {
                    Some(y) => Val::Int(y),
                    None => Val::Input,
                },
                Val::Sum(_) => Val::Undefined(format!("a sum under `{op:?}`")),
                v => v,
            },
            Expr::Pow2(a) => match self.eval(a, t) {
                Val::Int(x) if (0..62).contains(&x) => Val::Int(1i64 << x),
                Val::Input => Val::Input,
                Val::Undefined(w) => Val::Undefined(w),
                _ => Val::Undefined("a power of two of a sum".into()),
            },
            Expr::Bin(op, x, y) => {
                let (vx, vy) = (self.eval(x, t), self.eval(y, t));
                match (vx, vy) {
                    (Val::Undefined(w), _) | (_, Val::Undefined(w)) => Val::Undefined(w),
                    (Val::Int(a), Val::Int(b)) => {
                        match Expr::bin(*op, Expr::Const(a), Expr::Const(b)).as_const() {
                            Some(c) => Val::Int(c),
                            None => Val::Undefined(format!("`{a} {op:?} {b}` has no value")),
                        }
                    }
                    (Val::Int(_) | Val::Input, Val::Int(_) | Val::Input) => Val::Input,
                    (vx, vy) if *op == BinOp::Add => {
                        let mut terms = terms(vx, x, t);
                        terms.extend(self::terms(vy, y, t));
                        Val::Sum(terms)
                    }
                    _ => Val::Undefined(format!("a sum combined by `{op:?}`, not added")),
                }
            }
            Expr::Ite(c, x, y) => match self.eval(c, t) {
                Val::Int(v) => self.eval(if v != 0 { x } else { y }, t),
                Val::Input => match (self.eval(x, t), self.eval(y, t)) {
                    (Val::Int(_) | Val::Input, Val::Int(_) | Val::Input) => Val::Input,
                    _ => Val::Undefined("a choice between sums on a value of the inputs".into()),
                },
                Val::Sum(_) => Val::Undefined("a choice on a sum".into()),
                u => u,
            },
        }
    }

    /// A condition or index every thread computes without data.
    fn int(&self, e: &Expr, t: u32, what: &str) -> Result<i64, String> {
        match self.eval(e, t) {
            Val::Int(x) => Ok(x),
            Val::Undefined(w) => Err(format!("{what} at thread {t} is undefined ({w})")),
            _ => Err(format!("{what} (`{e}`) depends on values read from memory")),
        }
    }

    /// The value shuffle `s` gives thread `t`.
    fn shuffle(&self, s: &Shuffle, t: u32) -> Val {
        let runs = |u: u32| matches!(self.eval(&s.guard, u), Val::Int(x) if x != 0);
        if !runs(t) {
            return Val::Undefined(format!(
                "thread {t} does not run the shuffle `{}`",
                call_name(&s.value)
            ));
        }
        let Val::Int(lane) = self.eval(&s.lane, t) else {
            return Val::Undefined(format!(
                "the lane of the shuffle `{}` depends on data",
                s.value
            ));
        };
        let Val::Int(mask) = self.eval(&s.mask, t) else {
            return Val::Undefined(format!(
                "the mask of the shuffle `{}` depends on data",
                s.value
            ));
        };
        let t64 = t as i64;
        let Some(src) = s.source_of(t64, lane, mask) else {
            return Val::Undefined(format!(
                "the shuffle `{}` of thread {t} reads no one lane of its segment and mask",
                call_name(&s.value)
            ));
        };
        // CUDA: every lane the mask names must run the shuffle (for a
        // tile's, every lane of the warp), or the result is undefined.
        let warp = t64 - t64 % 32;
        for u in (0..32).filter(|i| (mask >> i) & 1 == 1).map(|i| warp + i) {
            if u >= self.n {
                return Val::Undefined(format!(
                    "the shuffle `{}` of thread {t} takes part with lane {u}, {NO_SUCH_LANE} {} threads is (undefined in CUDA)",
                    call_name(&s.value),
                    self.n
                ));
            }
            if !runs(u as u32) {
                return Val::Undefined(format!(
                    "the shuffle `{}` of thread {t} takes part with lane {u}, which does not run it (undefined in CUDA)",
                    call_name(&s.value)
                ));
            }
        }
        if src >= self.n {
            return Val::Undefined(format!(
                "the shuffle `{}` of thread {t} reads the register of lane {src}, {NO_SUCH_LANE} {} threads is (undefined in CUDA)",
                call_name(&s.value),
                self.n
            ));
        }
        if !runs(src as u32) {
            return Val::Undefined(format!(
                "the shuffle `{}` of thread {t} reads lane {src}, which does not run it (undefined in CUDA)",
                call_name(&s.value)
            ));
        }
        register(self.eval(&s.source, src as u32), &s.source, src as u32)
    }

    fn stmts(&mut self, stmts: &'k [Stmt]) -> Result<(), String> {
        for s in stmts {
            match s {
                Stmt::Access(a) => self.access(a)?,
                Stmt::Barrier(_) => {}
                Stmt::If(x, y) => {
                    self.stmts(x)?;
                    self.stmts(y)?;
                }
                Stmt::Loop(l) => self.run_loop(l)?,
                Stmt::LoopExit(_) => return Err("a `break`".into()),
            }
        }
        Ok(())
    }

    fn access(&mut self, a: &'k Access) -> Result<(), String> {
        let space = self.k.arrays[a.array].space;
        let name = &self.k.arrays[a.array].name;
        if a.kind == AccessKind::Atomic {
            return Err(format!("`{}` is an atomic update", a.text));
        }
        if space == MemorySpace::Global {
            // A read of an input is a value of the inputs wherever it is
            // made; the one write (the output) is checked after the run.
            return Ok(());
        }
        for t in 0..self.n as u32 {
            if self.int(&a.guard, t, &format!("the condition of `{}`", a.text))? == 0 {
                if let (AccessKind::Read, Some(Expr::Var(v))) = (a.kind, &a.value) {
                    self.env[t as usize].remove(v);
                }
                continue;
            }
            let index = self.int(&a.index, t, &format!("the index of `{}`", a.text))?;
            match (a.kind, &a.value) {
                (AccessKind::Read, Some(Expr::Var(v))) => {
                    let x = self
                        .shared
                        .get(&(a.array, index))
                        .cloned()
                        .unwrap_or_else(|| {
                            Val::Undefined(format!(
                                "`{name}[{index}]` is read before any thread writes it"
                            ))
                        });
                    self.env[t as usize].insert(v.clone(), x);
                }
                (AccessKind::Write, Some(v)) => {
                    let x = self.eval(v, t);
                    let x = match x {
                        Val::Int(_) | Val::Input => Val::Sum(terms(x, v, t)),
                        x => x,
                    };
                    self.shared.insert((a.array, index), x);
                }
                _ => return Err(format!("the value of `{}` is not modelled", a.text)),
            }
        }
        Ok(())
    }

    fn run_loop(&mut self, l: &'k Loop) -> Result<(), String> {
        let folds: Vec<&'k Fold> = self.k.folds.iter().filter(|f| f.loop_id == l.id).collect();
        let n = self.n as usize;
        let mut state: Vec<Vec<Val>> = (0..n)
            .map(|t| {
                folds
                    .iter()
                    .map(|f| register(self.eval(&f.init, t as u32), &f.init, t as u32))
                    .collect()
            })
            .collect();
        let mut done = false;
        for it in 0..MAX_ITERATIONS {
            self.counters.insert(l.counter.clone(), it);
            self.stmts(&l.body[..l.cond_len])?;
            let mut go = None;
            for t in 0..n as u32 {
                let g = self.int(&l.guard, t, "a loop's condition")? != 0;
                if *go.get_or_insert(g) != g {
                    return Err(format!(
                        "the condition of the loop over `{}` differs between threads",
                        l.counter
                    ));
                }
            }
            if go != Some(true) {
                done = true;
                break;
            }
            for (t, st) in state.iter().enumerate() {
                for (f, x) in folds.iter().zip(st) {
                    self.env[t].insert(f.carried.clone(), x.clone());
                }
            }
            self.stmts(&l.body[l.cond_len..])?;
            // Every thread's next value from the values at this iteration
            // (a shuffle reads its source lane's before it changes).
            self.exchanging.set(true);
            let next: Vec<Vec<Val>> = (0..n)
                .map(|t| folds.iter().map(|f| self.eval(&f.next, t as u32)).collect())
                .collect();
            self.exchanging.set(false);
            state = next;
        }
        self.counters.remove(&l.counter);
        if !done {
            return Err(format!(
                "the loop over `{}` runs more than {MAX_ITERATIONS} times",
                l.counter
            ));
        }
        for (t, st) in state.into_iter().enumerate() {
            for (f, x) in folds.iter().zip(st) {
                self.env[t].insert(f.exit.clone(), x);
            }
        }
        Ok(())
    }
}

/// A shuffle's call as written (`__shfl_down_sync`, `shfl_down`).
fn call_name(v: &Var) -> &str {
    let name = v
        .name
        .strip_prefix(crate::symbols::UNSEEN_PREFIX)
        .unwrap_or(&v.name);
    name.split('#').next().unwrap_or(name)
}

/// The phrase of a reason that is a shuffle reading a lane of no thread.
const NO_SUCH_LANE: &str = "which no thread of a block of";

/// Whether `e` (a term) is a value of the inputs at one thread: built of
/// the thread's and block's coordinates, the launch's sizes, parameters,
/// literals and reads (outside loops) of global arrays the kernel does not
/// write, whose place depends on no value read from memory.
fn input_term(k: &Kernel, e: &Expr, written: &[bool]) -> bool {
    let reads = k.accesses();
    let plain = |x: &Expr| {
        !x.mentions(&mut |v| {
            matches!(v.kind, VarKind::Unknown { .. }) && crate::equiv::float_literal(v).is_none()
        })
    };
    let mut ok = true;
    e.for_each_var(&mut |v| {
        ok &= match v.kind {
            VarKind::ThreadIdx(_)
            | VarKind::BlockIdx(_)
            | VarKind::BlockDim(_)
            | VarKind::GridDim(_)
            | VarKind::Param { .. } => true,
            _ if crate::equiv::float_literal(v).is_some() => true,
            _ => reads.iter().any(|a| {
                a.kind == AccessKind::Read
                    && a.value.as_ref() == Some(&Expr::Var(v.clone()))
                    && k.arrays[a.array].space == MemorySpace::Global
                    && !written[a.array]
                    && a.loops.is_empty()
                    && plain(&a.index)
                    && plain(&a.guard)
            }),
        }
    });
    ok
}

/// A register's start value: a value of the inputs is the thread's term.
fn register(v: Val, e: &Expr, t: u32) -> Val {
    match v {
        Val::Input => Val::Sum(vec![(t, e.clone())]),
        v => v,
    }
}

/// `v` (the value of `e` at thread `t`) as a list of terms.
fn terms(v: Val, e: &Expr, t: u32) -> Vec<(u32, Expr)> {
    match v {
        Val::Int(0) => Vec::new(),
        Val::Sum(s) => s,
        _ => vec![(t, e.clone())],
    }
}

/// The kernel with its one global write's value computed by a serial sum
/// over the block, when `k` (with warp shuffles) is such a sum under the
/// fixed block size; `Ok(None)` when it has no shuffle or the value is no
/// sum.
pub(crate) fn summed(k: &Kernel, fixed: &Fixed) -> Result<Option<Kernel>, NotRun> {
    if k.shuffles.is_empty() {
        return Ok(None);
    }
    let plain = |reason: String| NotRun {
        reason,
        undefined: false,
    };
    let size = |d: u8| {
        fixed
            .get(&*crate::verify::smt::block_dim_var(d).name)
            .copied()
    };
    let n = match (size(0), size(1), size(2)) {
        (Some(n), Some(1), Some(1)) if (1..=MAX_THREADS).contains(&n) => n,
        _ => {
            return Err(plain(
                "the block's sum ends in warp shuffles, which are followed under one fixed one-dimensional block size only (a launch with `blockDim.x == N`)".into(),
            ))
        }
    };
    let accesses = k.accesses();
    let outputs: Vec<&Access> = accesses
        .iter()
        .copied()
        .filter(|a| a.kind.writes() && k.arrays[a.array].space == MemorySpace::Global)
        .collect();
    let [w] = outputs[..] else {
        return Err(plain(format!(
            "the kernel writes global memory in {} statements, not one",
            outputs.len()
        )));
    };
    let reads_memory = |e: &Expr| e.mentions(&mut |v| k.read_values.iter().any(|(r, _)| r == v));
    if reads_memory(&w.guard) || reads_memory(&w.index) {
        return Err(plain(format!(
            "where `{}` writes depends on values read from memory",
            w.text
        )));
    }
    let mut written = vec![false; k.arrays.len()];
    for a in &accesses {
        if a.kind.writes() {
            written[a.array] = true;
        }
    }
    let mut tracked = std::collections::HashSet::new();
    for f in &k.folds {
        tracked.insert(&f.carried);
        tracked.insert(&f.exit);
    }
    for a in &accesses {
        if let (AccessKind::Read, Some(Expr::Var(v))) = (a.kind, &a.value) {
            if k.arrays[a.array].space != MemorySpace::Global {
                tracked.insert(v);
            }
        }
    }
    let inputs = accesses
        .iter()
        .filter(|a| {
            a.kind == AccessKind::Read
                && k.arrays[a.array].space == MemorySpace::Global
                && !written[a.array]
                && a.loops.is_empty()
        })
        .filter_map(|a| match &a.value {
            Some(Expr::Var(v)) => Some(v),
            _ => None,
        })
        .collect();
    let mut run = Run {
        k,
        n,
        env: vec![HashMap::new(); n as usize],
        shared: HashMap::new(),
        counters: HashMap::new(),
        shuffles: k.shuffles.iter().map(|s| (&s.value, s)).collect(),
        tracked,
        written,
        inputs,
        exchanging: std::cell::Cell::new(false),
    };
    run.stmts(&k.body).map_err(|why| {
        plain(format!(
            "the block of {n} threads is not run in lockstep: {why}"
        ))
    })?;
    let Some(value) = &w.value else {
        return Err(plain(format!(
            "the value `{}` writes is not modelled",
            w.text
        )));
    };
    let mut term: Option<Expr> = None;
    let mut counts: Option<Vec<u32>> = None;
    for t in 0..n as u32 {
        let g = run
            .int(&w.guard, t, &format!("the condition of `{}`", w.text))
            .map_err(plain)?;
        if g == 0 {
            continue;
        }
        let terms = match run.eval(value, t) {
            Val::Sum(s) => s,
            Val::Undefined(why) => {
                let undefined = why.contains(NO_SUCH_LANE);
                return Err(NotRun {
                    reason: format!(
                        "the value `{}` writes at thread {t} under blockDim.x = {n} is undefined: {why}",
                        w.text
                    ),
                    undefined,
                });
            }
            _ => return Ok(None),
        };
        let mut seen = vec![0u32; n as usize];
        for (u, e) in &terms {
            seen[*u as usize] += 1;
            match &term {
                None => term = Some(e.clone()),
                Some(x) if x == e => {}
                Some(x) => {
                    return Err(plain(format!(
                        "the value `{}` writes adds different terms (`{x}` and `{e}`): not one sum over the block",
                        w.text
                    )))
                }
            }
        }
        // Each writing thread adds the same threads' terms, each as many
        // times (once in a sum over the block; any other count is kept,
        // and the comparison refutes it).
        match &counts {
            None => counts = Some(seen),
            Some(c) if *c == seen => {}
            Some(_) => {
                return Err(plain(format!(
                    "the threads that run `{}` under blockDim.x = {n} write sums of different threads' terms",
                    w.text
                )))
            }
        }
    }
    let Some(term) = term else {
        return Ok(None);
    };
    if !input_term(k, &term, &run.written) {
        return Err(plain(format!(
            "the value `{}` writes is a sum over the block of `{term}`, which is not a value of the inputs alone",
            w.text
        )));
    }
    let counts = counts.unwrap_or_default();
    // A term added twice is kept out of the comparison's query: a sum of
    // equal terms under the axioms of `+` is beyond the solver's search
    // for a model (a term added once or not at all is not).
    if let Some(u) = counts.iter().position(|c| *c > 1) {
        return Err(plain(format!(
            "the value `{}` writes under blockDim.x = {n} adds the term of thread {u} {} times",
            w.text, counts[u]
        )));
    }
    Ok(Some(serial_sum(k, w, &term, n, &counts)))
}

/// `k` with `w` writing `Σ_{k < n} counts[k] * term[threadIdx.x := k]`,
/// computed by a loop that reads each of the term's inputs at thread `k`
/// (`counts[k]`, the times the term of thread `k` is added: 0 or 1).
fn serial_sum(k: &Kernel, w: &Access, term: &Expr, n: i64, counts: &[u32]) -> Kernel {
    let value_var = |name: String| {
        Var::new(
            name,
            VarKind::Unknown {
                scope: crate::model::Scope::Thread,
                lo: i64::MIN,
                hi: i64::MAX,
            },
        )
    };
    let loop_id = k.loops().iter().map(|l| l.id).max().map_or(0, |m| m + 1);
    let counter = Var::new("sum.k@0", VarKind::Counter { pow2: false });
    let at_k = |e: &Expr| {
        e.subst(&mut |v: &Var| {
            (v.kind == VarKind::ThreadIdx(0)).then(|| Expr::Var(counter.clone()))
        })
    };
    let mut next_id = k.accesses().iter().map(|a| a.id).max().unwrap_or(0) + 1;
    let mut body = Vec::new();
    let mut renamed: HashMap<Var, Expr> = HashMap::new();
    for a in k.accesses() {
        let Some(Expr::Var(v)) = &a.value else {
            continue;
        };
        if a.kind != AccessKind::Read || !term.mentions(&mut |u| u == v) {
            continue;
        }
        let fresh = value_var(format!("{}⟨sum.k@0⟩", v.name));
        renamed.insert(v.clone(), Expr::Var(fresh.clone()));
        next_id += 1;
        body.push(Stmt::Access(Access {
            id: next_id,
            guard: Expr::and(
                Expr::bin(BinOp::Lt, Expr::Var(counter.clone()), Expr::Const(n)),
                at_k(&a.guard),
            ),
            index: at_k(&a.index),
            value: Some(Expr::Var(fresh)),
            loops: vec![loop_id],
            ..a.clone()
        }));
    }
    let once = at_k(term).subst(&mut |v: &Var| renamed.get(v).cloned());
    let step =
        counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != 1)
            .fold(once.clone(), |rest, (u, c)| {
                Expr::ite(
                    Expr::eq(Expr::Var(counter.clone()), Expr::Const(u as i64)),
                    Expr::Const(i64::from(*c)),
                    rest,
                )
            });
    let (carried, exit) = (value_var("sum#1".into()), value_var("sum@exit".into()));
    let fold = Fold {
        exit: exit.clone(),
        init: Expr::Const(0),
        carried: carried.clone(),
        next: Expr::bin(BinOp::Add, Expr::Var(carried), step),
        loop_id,
    };
    let summing = Stmt::Loop(Loop {
        id: loop_id,
        counter: counter.clone(),
        guard: Expr::bin(BinOp::Lt, Expr::Var(counter), Expr::Const(n)),
        cond_len: 0,
        body,
        span: w.span,
        display: Vec::new(),
    });
    let write = Stmt::Access(Access {
        value: Some(Expr::Var(exit)),
        ..w.clone()
    });
    let mut out = k.clone();
    out.body = vec![summing, write];
    out.folds = vec![fold];
    out.shuffles.clear();
    out
}
