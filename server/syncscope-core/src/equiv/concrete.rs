//! The concrete interpreter of `syncscope equiv`: runs every thread of a
//! small launch of a kernel model lowered with read values
//! (`Options::track_values`), on deterministic inputs, and returns what the
//! kernel left in global memory. Arithmetic on values is the model's
//! integer arithmetic (64-bit, wrapping): one fixed interpretation of the
//! operations the proof treats as uninterpreted.
//!
//! The model is compiled once per kernel ([`Program`]): variables become
//! slots of a thread's state, statements a flat list of operations with
//! jumps, so a thread can stop at a barrier anywhere (inside loops and
//! conditionals) and resume there. The threads of a block run phase by
//! phase: each runs until its next barrier, and all must reach the same
//! barrier (or all the end) before any goes on.

use crate::model::{
    AccessKind, BarrierKind, BinOp, Expr, Kernel, MemorySpace, Stmt, UnOp, VarKind,
};
use crate::verify::replay::{linear, LaunchShape};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// One concrete launch: sizes and the values of the scalar parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Launch {
    pub shape: LaunchShape,
    pub params: BTreeMap<String, i64>,
}

/// The initial content of `array[index]` (inputs, and global locations a
/// kernel does not write): distinct, deterministic values.
pub(crate) fn input(array: &str, index: i64) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in array.bytes().chain(index.to_le_bytes()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (h >> 34) as i64
}

/// Final global memory: the locations the kernel wrote, by array name.
pub(crate) type Written = BTreeMap<(String, i64), i64>;

/// Why a run stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RunError {
    /// Something this interpreter does not run (or an undefined value):
    /// the launch says nothing.
    Unsupported(String),
    /// The threads of a block did not all reach the same barrier.
    Divergence(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Unsupported(s) | RunError::Divergence(s) => f.write_str(s),
        }
    }
}

/// An expression with its variables resolved to slots.
#[derive(Clone, Debug)]
enum CExpr {
    Const(i64),
    Slot(u32),
    /// threadIdx, blockIdx, blockDim or gridDim.
    Builtin(VarKind),
    Un(UnOp, Box<CExpr>),
    Pow2(Box<CExpr>),
    Ite(Box<CExpr>, Box<CExpr>, Box<CExpr>),
    Bin(BinOp, Box<CExpr>, Box<CExpr>),
}

/// Why an expression has no value.
#[derive(Clone, Copy, Debug)]
enum Undefined {
    Slot(u32),
    Other(&'static str),
}

/// What one thread sees: its coordinates and the launch sizes.
struct Ctx<'a> {
    slots: &'a [Option<i64>],
    tid: [i64; 3],
    bid: [i64; 3],
    shape: LaunchShape,
}

impl Ctx<'_> {
    fn eval(&self, e: &CExpr) -> Result<i64, Undefined> {
        Ok(match e {
            CExpr::Const(c) => *c,
            CExpr::Slot(s) => match self.slots[*s as usize] {
                Some(x) => x,
                None => return Err(Undefined::Slot(*s)),
            },
            CExpr::Builtin(kind) => match self.shape.builtin(*kind, self.tid, self.bid) {
                Some(x) => x,
                None => return Err(Undefined::Other("not a built-in variable")),
            },
            CExpr::Un(op, a) => {
                let x = self.eval(a)?;
                match op {
                    UnOp::Neg => x.wrapping_neg(),
                    UnOp::Not => (x == 0) as i64,
                    UnOp::BitNot => !x,
                }
            }
            CExpr::Pow2(a) => {
                let x = self.eval(a)?;
                if !(0..63).contains(&x) {
                    return Err(Undefined::Other("2^e out of range"));
                }
                1i64 << x
            }
            CExpr::Ite(c, a, b) => {
                if self.eval(c)? != 0 {
                    self.eval(a)?
                } else {
                    self.eval(b)?
                }
            }
            CExpr::Bin(op, a, b) => {
                let x = self.eval(a)?;
                // Short-circuit: the right operand may be undefined.
                match op {
                    BinOp::And if x == 0 => return Ok(0),
                    BinOp::Or if x != 0 => return Ok(1),
                    _ => {}
                }
                let y = self.eval(b)?;
                match op {
                    BinOp::Add => x.wrapping_add(y),
                    BinOp::Sub => x.wrapping_sub(y),
                    BinOp::Mul => x.wrapping_mul(y),
                    BinOp::Div | BinOp::Rem if y == 0 => {
                        return Err(Undefined::Other("division by zero"))
                    }
                    BinOp::Div => x.wrapping_div(y),
                    BinOp::Rem => x.wrapping_rem(y),
                    BinOp::Shl => x.wrapping_shl((y & 63) as u32),
                    BinOp::Shr => x.wrapping_shr((y & 63) as u32),
                    BinOp::BitAnd => x & y,
                    BinOp::BitOr => x | y,
                    BinOp::BitXor => x ^ y,
                    BinOp::Lt => (x < y) as i64,
                    BinOp::Le => (x <= y) as i64,
                    BinOp::Gt => (x > y) as i64,
                    BinOp::Ge => (x >= y) as i64,
                    BinOp::Eq => (x == y) as i64,
                    BinOp::Ne => (x != y) as i64,
                    BinOp::And | BinOp::Or => (y != 0) as i64,
                    BinOp::Min => x.min(y),
                    BinOp::Max => x.max(y),
                }
            }
        })
    }
}

/// One operation of a compiled kernel. Every operation with a guard has a
/// coverage entry (its index): which outcomes of the guard some run saw.
#[derive(Clone, Debug)]
enum Op {
    Read {
        guard: CExpr,
        array: usize,
        index: CExpr,
        value: Option<u32>,
    },
    Write {
        guard: CExpr,
        array: usize,
        index: CExpr,
        value: CExpr,
    },
    /// Something the interpreter does not run, when the guard holds.
    Fail {
        guard: CExpr,
        why: String,
    },
    Barrier {
        guard: CExpr,
        line: usize,
    },
    /// Start of a loop: counter 0, not left, the folds' start values.
    LoopInit {
        counter: u32,
        nr: usize,
        folds: Vec<(u32, CExpr)>,
    },
    /// After the statements of the condition: on to the body while the
    /// guard holds, else to the loop's end (`end`).
    LoopTest {
        guard: CExpr,
        counter: u32,
        pow2: bool,
        end: usize,
    },
    /// A `break`: the loop stops at the end of this iteration.
    LoopExit {
        guard: CExpr,
        nr: usize,
    },
    /// End of an iteration: the folds' next values, the counter's next
    /// value, back to the head (`head`), or to the end after a `break`.
    LoopNext {
        counter: u32,
        nr: usize,
        folds: Vec<(u32, CExpr)>,
        head: usize,
        end: usize,
    },
    /// After the loop: each fold's exit value.
    LoopEnd {
        exits: Vec<(u32, u32)>,
    },
    /// The warp shuffles a loop's folds add, before their next values: a
    /// stop of every thread (they exchange registers in lockstep), then
    /// each running thread's result from its source lane.
    Exchange {
        shuffles: Vec<Exchanged>,
    },
}

/// A shuffle compiled: `Kernel::shuffles[index]`, the slot of its result.
#[derive(Clone, Debug)]
struct Exchanged {
    index: usize,
    value: u32,
    guard: CExpr,
    lane: CExpr,
    mask: CExpr,
    source: CExpr,
}

/// A kernel model compiled for the interpreter.
pub(crate) struct Program<'k> {
    kernel: &'k Kernel,
    code: Vec<Op>,
    /// The variable of each slot.
    names: Vec<Arc<str>>,
    /// Slots of the scalar parameters, and of floating-point literals with
    /// their values.
    params: Vec<(u32, String)>,
    constants: Vec<(u32, i64)>,
    loops: usize,
    assumptions: Vec<CExpr>,
    /// For each global array, the first array of its name (one storage).
    storage: Vec<usize>,
    error: Option<String>,
}

struct Compiler<'k> {
    kernel: &'k Kernel,
    code: Vec<Op>,
    slots: HashMap<Arc<str>, u32>,
    names: Vec<Arc<str>>,
    params: Vec<(u32, String)>,
    constants: Vec<(u32, i64)>,
    loops: usize,
    error: Option<String>,
}

impl Compiler<'_> {
    fn slot(&mut self, v: &crate::model::Var) -> u32 {
        if let Some(s) = self.slots.get(&v.name) {
            return *s;
        }
        let s = self.names.len() as u32;
        self.names.push(v.name.clone());
        self.slots.insert(v.name.clone(), s);
        if let VarKind::Param { .. } = v.kind {
            self.params.push((s, v.name.to_string()));
        } else if let Some(x) = super::float_literal(v) {
            self.constants.push((s, x));
        }
        s
    }

    fn expr(&mut self, e: &Expr) -> CExpr {
        match e {
            Expr::Const(c) => CExpr::Const(*c),
            Expr::Var(v) => match v.kind {
                VarKind::ThreadIdx(_)
                | VarKind::BlockIdx(_)
                | VarKind::BlockDim(_)
                | VarKind::GridDim(_) => CExpr::Builtin(v.kind),
                // Whether the thread left the loop by a `break` in an
                // earlier iteration (`symbols::loop_exited`, in the guards
                // of a loop a thread may leave early): never here, where a
                // `break` ends the thread's loop.
                VarKind::Unknown { .. } if crate::symbols::is_loop_exited(&v.name) => {
                    CExpr::Const(0)
                }
                _ => CExpr::Slot(self.slot(v)),
            },
            Expr::Un(op, a) => CExpr::Un(*op, Box::new(self.expr(a))),
            Expr::Pow2(a) => CExpr::Pow2(Box::new(self.expr(a))),
            Expr::Ite(c, a, b) => CExpr::Ite(
                Box::new(self.expr(c)),
                Box::new(self.expr(a)),
                Box::new(self.expr(b)),
            ),
            Expr::Bin(op, a, b) => CExpr::Bin(*op, Box::new(self.expr(a)), Box::new(self.expr(b))),
        }
    }

    /// Compiles `stmts`; `nr`: the innermost enclosing loop's number.
    fn stmts(&mut self, stmts: &[Stmt], nr: Option<usize>) {
        for s in stmts {
            match s {
                Stmt::Access(a) => {
                    let guard = self.expr(&a.guard);
                    let fail = if a.width != 1 {
                        Some(format!("`{}` accesses a byte range", a.text))
                    } else {
                        match (a.kind, &a.value) {
                            (AccessKind::Atomic, _) => {
                                Some(format!("`{}` is an atomic update", a.text))
                            }
                            (AccessKind::Write, None) => {
                                Some(format!("the value `{}` writes is not modelled", a.text))
                            }
                            _ => None,
                        }
                    };
                    let op = match (fail, a.kind) {
                        (Some(why), _) => Op::Fail { guard, why },
                        (None, AccessKind::Read) => Op::Read {
                            guard,
                            array: a.array,
                            index: self.expr(&a.index),
                            value: match &a.value {
                                Some(Expr::Var(u)) => Some(self.slot(u)),
                                _ => None,
                            },
                        },
                        (None, _) => Op::Write {
                            guard,
                            array: a.array,
                            index: self.expr(&a.index),
                            value: self.expr(a.value.as_ref().expect("a modelled value")),
                        },
                    };
                    self.code.push(op);
                }
                Stmt::Barrier(b) => {
                    let guard = self.expr(&b.guard);
                    let line = b.span.start.line as usize + 1;
                    self.code.push(match b.kind {
                        BarrierKind::Block => Op::Barrier { guard, line },
                        BarrierKind::Warp => Op::Fail {
                            guard,
                            why: format!("the warp barrier on line {line}"),
                        },
                        BarrierKind::Grid => Op::Fail {
                            guard,
                            why: format!("the grid barrier on line {line}"),
                        },
                    });
                }
                Stmt::If(a, b) => {
                    self.stmts(a, nr);
                    self.stmts(b, nr);
                }
                Stmt::LoopExit(g) => match nr {
                    Some(nr) => {
                        let guard = self.expr(g);
                        self.code.push(Op::LoopExit { guard, nr });
                    }
                    None => {
                        self.error
                            .get_or_insert_with(|| "a `break` outside a loop".to_string());
                    }
                },
                Stmt::Loop(l) => {
                    let kernel = self.kernel;
                    let folds: Vec<_> = kernel.folds.iter().filter(|f| f.loop_id == l.id).collect();
                    let counter = self.slot(&l.counter);
                    let this = self.loops;
                    self.loops += 1;
                    let init = folds
                        .iter()
                        .map(|f| (self.slot(&f.carried), self.expr(&f.init)))
                        .collect();
                    self.code.push(Op::LoopInit {
                        counter,
                        nr: this,
                        folds: init,
                    });
                    let head = self.code.len();
                    let cond_len = l.cond_len.min(l.body.len());
                    self.stmts(&l.body[..cond_len], Some(this));
                    let test = self.code.len();
                    let guard = self.expr(&l.guard);
                    self.code.push(Op::LoopTest {
                        guard,
                        counter,
                        pow2: matches!(l.counter.kind, VarKind::Counter { pow2: true }),
                        end: 0,
                    });
                    self.stmts(&l.body[cond_len..], Some(this));
                    let exchanged: Vec<Exchanged> = kernel
                        .shuffles
                        .iter()
                        .enumerate()
                        .filter(|(_, sh)| {
                            folds
                                .iter()
                                .any(|f| f.next.mentions(&mut |v| *v == sh.value))
                        })
                        .map(|(index, sh)| Exchanged {
                            index,
                            value: self.slot(&sh.value),
                            guard: self.expr(&sh.guard),
                            lane: self.expr(&sh.lane),
                            mask: self.expr(&sh.mask),
                            source: self.expr(&sh.source),
                        })
                        .collect();
                    if !exchanged.is_empty() {
                        self.code.push(Op::Exchange {
                            shuffles: exchanged,
                        });
                    }
                    let next = folds
                        .iter()
                        .map(|f| (self.slot(&f.carried), self.expr(&f.next)))
                        .collect();
                    let end = self.code.len() + 1;
                    self.code.push(Op::LoopNext {
                        counter,
                        nr: this,
                        folds: next,
                        head,
                        end,
                    });
                    if let Op::LoopTest { end: e, .. } = &mut self.code[test] {
                        *e = end;
                    }
                    let exits = folds
                        .iter()
                        .map(|f| (self.slot(&f.exit), self.slot(&f.carried)))
                        .collect();
                    self.code.push(Op::LoopEnd { exits });
                }
            }
        }
    }
}

/// Iterations a loop may run before the run gives up.
const MAX_ITERATIONS: i64 = 1 << 14;

/// Where a thread stopped: at a barrier (the operation's index), or at the
/// end of the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    Barrier(usize),
    /// At an [`Op::Exchange`].
    Exchange(usize),
    End,
}

/// The threads of one block: program counters, slots and `break` flags,
/// thread after thread in one allocation each.
struct Block {
    pc: Vec<usize>,
    slots: Vec<Option<i64>>,
    broke: Vec<bool>,
}

struct Memory {
    global: HashMap<(usize, i64), i64>,
    shared: HashMap<(usize, i64), i64>,
    block: i64,
}

impl<'k> Program<'k> {
    /// Compiles the kernel (once; it runs on any launch).
    pub(crate) fn new(kernel: &'k Kernel) -> Program<'k> {
        let mut c = Compiler {
            kernel,
            code: Vec::new(),
            slots: HashMap::new(),
            names: Vec::new(),
            params: Vec::new(),
            constants: Vec::new(),
            loops: 0,
            error: None,
        };
        c.stmts(&kernel.body, None);
        let assumptions = kernel.assumptions.iter().map(|a| c.expr(a)).collect();
        let storage = kernel
            .arrays
            .iter()
            .enumerate()
            .map(|(i, a)| {
                kernel
                    .arrays
                    .iter()
                    .position(|b| {
                        a.space == MemorySpace::Global
                            && b.space == MemorySpace::Global
                            && b.name == a.name
                    })
                    .unwrap_or(i)
            })
            .collect();
        Program {
            kernel,
            code: c.code,
            names: c.names,
            params: c.params,
            constants: c.constants,
            loops: c.loops,
            assumptions,
            storage,
            error: c.error,
        }
    }

    /// A fresh coverage record for [`Program::run`].
    pub(crate) fn coverage(&self) -> Coverage {
        Coverage(vec![0; self.code.len()])
    }

    /// The slots every thread starts with: the launch's parameters and
    /// the literals' values.
    fn initial(&self, launch: &Launch) -> Vec<Option<i64>> {
        let mut slots = vec![None; self.names.len()];
        for (s, name) in &self.params {
            slots[*s as usize] = launch.params.get(name).copied();
        }
        for (s, x) in &self.constants {
            slots[*s as usize] = Some(*x);
        }
        slots
    }

    fn message(&self, u: Undefined) -> String {
        match u {
            Undefined::Slot(s) => format!(
                "`{}` has no concrete value in the model",
                self.names[s as usize]
            ),
            Undefined::Other(why) => why.to_string(),
        }
    }

    /// Whether the kernel's preconditions (`__requires`) hold for this launch.
    pub(crate) fn assumptions_hold(&self, launch: &Launch) -> Result<bool, String> {
        let slots = self.initial(launch);
        let ctx = Ctx {
            slots: &slots,
            tid: [0; 3],
            bid: [0; 3],
            shape: launch.shape,
        };
        for a in &self.assumptions {
            if ctx.eval(a).map_err(|u| self.message(u))? == 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Runs the kernel: blocks one after another, and in each block every
    /// thread up to its next barrier before any goes past it (exact for a
    /// kernel free of races, which `equiv` checks first). `coverage`
    /// records the guards' outcomes; it tells whether this run saw one no
    /// run had seen before.
    pub(crate) fn run(
        &self,
        launch: &Launch,
        coverage: &mut Coverage,
    ) -> Result<(Written, bool), RunError> {
        if let Some(e) = &self.error {
            return Err(RunError::Unsupported(e.clone()));
        }
        let before = coverage.0.iter().map(|c| c.count_ones()).sum::<u32>();
        let initial = self.initial(launch);
        let n = initial.len();
        let per_block = launch.shape.per_block() as usize;
        let tids: Vec<[i64; 3]> = linear(launch.shape.block).collect();
        let mut mem = Memory {
            global: HashMap::new(),
            shared: HashMap::new(),
            block: 0,
        };
        let mut threads = Block {
            pc: vec![0; per_block],
            slots: Vec::with_capacity(per_block * n),
            broke: vec![false; per_block * self.loops],
        };
        for bid in linear(launch.shape.grid) {
            mem.shared.clear();
            threads.pc.iter_mut().for_each(|p| *p = 0);
            threads.broke.iter_mut().for_each(|b| *b = false);
            threads.slots.clear();
            for _ in 0..per_block {
                threads.slots.extend_from_slice(&initial);
            }
            loop {
                let mut first: Option<Stop> = None;
                for (t, tid) in tids.iter().enumerate() {
                    let stop =
                        self.step(&mut threads, t, n, *tid, bid, launch, &mut mem, coverage)?;
                    match first {
                        None => first = Some(stop),
                        Some(f) if f != stop && [f, stop].iter().any(|s| matches!(s, Stop::Exchange(_))) => {
                            return Err(RunError::Unsupported(format!(
                                "in block {bid:?} threads {:?} and {tid:?} reach the warp shuffles of a loop apart",
                                tids[0]
                            )))
                        }
                        Some(f) if f != stop => {
                            return Err(self.divergence((tids[0], f), (*tid, stop), bid))
                        }
                        Some(_) => {}
                    }
                }
                if let Some(Stop::Exchange(pc)) = first {
                    self.exchange(&mut threads, pc, n, &tids, bid, launch);
                }
                if matches!(first, None | Some(Stop::End)) {
                    break;
                }
            }
            mem.block += 1;
        }
        let written = mem
            .global
            .into_iter()
            .map(|((a, i), v)| ((self.kernel.arrays[a].name.clone(), i), v))
            .collect();
        let after = coverage.0.iter().map(|c| c.count_ones()).sum::<u32>();
        Ok((written, after > before))
    }

    fn divergence(&self, a: ([i64; 3], Stop), b: ([i64; 3], Stop), bid: [i64; 3]) -> RunError {
        let at = |s: Stop| match s {
            Stop::Barrier(pc) => match &self.code[pc] {
                Op::Barrier { line, .. } => format!("the barrier on line {line}"),
                _ => "a barrier".to_string(),
            },
            Stop::Exchange(_) => "a warp shuffle".to_string(),
            Stop::End => "the end of the kernel".to_string(),
        };
        RunError::Divergence(format!(
            "barrier divergence on the concrete interpreter: in block {bid:?} thread {:?} reaches {} and thread {:?} {}",
            a.0,
            at(a.1),
            b.0,
            at(b.1)
        ))
    }

    /// Runs thread `t` of the block from where it stopped to its next
    /// barrier or the end.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &self,
        threads: &mut Block,
        t: usize,
        n: usize,
        tid: [i64; 3],
        bid: [i64; 3],
        launch: &Launch,
        mem: &mut Memory,
        coverage: &mut Coverage,
    ) -> Result<Stop, RunError> {
        let slots = &mut threads.slots[t * n..(t + 1) * n];
        let broke = &mut threads.broke[t * self.loops..(t + 1) * self.loops];
        let mut pc = threads.pc[t];
        let err = |u: Undefined| RunError::Unsupported(self.message(u));
        macro_rules! ctx {
            () => {
                Ctx {
                    slots: &*slots,
                    tid,
                    bid,
                    shape: launch.shape,
                }
            };
        }
        macro_rules! guard {
            ($g:expr) => {{
                let holds = ctx!().eval($g).map_err(err)? != 0;
                coverage.0[pc] |= if holds { 1 } else { 2 };
                holds
            }};
        }
        while pc < self.code.len() {
            match &self.code[pc] {
                Op::Read {
                    guard,
                    array,
                    index,
                    value,
                } => {
                    if guard!(guard) {
                        let i = ctx!().eval(index).map_err(err)?;
                        let v = self.load(mem, *array, i);
                        if let Some(s) = value {
                            slots[*s as usize] = Some(v);
                        }
                    }
                }
                Op::Write {
                    guard,
                    array,
                    index,
                    value,
                } => {
                    if guard!(guard) {
                        let c = ctx!();
                        let i = c.eval(index).map_err(err)?;
                        let v = c.eval(value).map_err(err)?;
                        self.store(mem, *array, i, v);
                    }
                }
                Op::Fail { guard, why } => {
                    if guard!(guard) {
                        return Err(RunError::Unsupported(why.clone()));
                    }
                }
                Op::Barrier { guard, .. } => {
                    if guard!(guard) {
                        threads.pc[t] = pc + 1;
                        return Ok(Stop::Barrier(pc));
                    }
                }
                Op::LoopInit { counter, nr, folds } => {
                    // A value that cannot be computed (the loop's reads did
                    // not run: the thread is outside the code's condition)
                    // stays without a value; using it is an error.
                    let values: Vec<_> = folds.iter().map(|(_, e)| ctx!().eval(e).ok()).collect();
                    for ((s, _), v) in folds.iter().zip(values) {
                        slots[*s as usize] = v;
                    }
                    slots[*counter as usize] = Some(0);
                    broke[*nr] = false;
                }
                Op::LoopTest {
                    guard,
                    counter,
                    pow2,
                    end,
                } => {
                    let k = slots[*counter as usize].unwrap_or(0);
                    if (*pow2 && k >= 64) || !guard!(guard) {
                        pc = *end;
                        continue;
                    }
                }
                Op::LoopExit { guard, nr } => {
                    if guard!(guard) {
                        broke[*nr] = true;
                    }
                }
                Op::LoopNext {
                    counter,
                    nr,
                    folds,
                    head,
                    end,
                } => {
                    let values: Vec<_> = folds.iter().map(|(_, e)| ctx!().eval(e).ok()).collect();
                    for ((s, _), v) in folds.iter().zip(values) {
                        slots[*s as usize] = v;
                    }
                    if std::mem::take(&mut broke[*nr]) {
                        pc = *end;
                        continue;
                    }
                    let k = slots[*counter as usize].unwrap_or(0) + 1;
                    if k > MAX_ITERATIONS {
                        return Err(RunError::Unsupported("a loop ran too long".into()));
                    }
                    slots[*counter as usize] = Some(k);
                    pc = *head;
                    continue;
                }
                Op::Exchange { .. } => {
                    threads.pc[t] = pc + 1;
                    return Ok(Stop::Exchange(pc));
                }
                Op::LoopEnd { exits } => {
                    for (exit, carried) in exits {
                        slots[*exit as usize] = slots[*carried as usize];
                    }
                }
            }
            pc += 1;
        }
        threads.pc[t] = pc;
        Ok(Stop::End)
    }

    /// The shuffles of the exchange at `pc`, every thread of the block
    /// stopped there: each thread that runs one gets its source lane's
    /// value; one whose source lane is no thread of the block or does not
    /// run the shuffle gets none (undefined in CUDA: using it stops the
    /// run).
    fn exchange(
        &self,
        threads: &mut Block,
        pc: usize,
        n: usize,
        tids: &[[i64; 3]],
        bid: [i64; 3],
        launch: &Launch,
    ) {
        let Op::Exchange { shuffles } = &self.code[pc] else {
            return;
        };
        let mut results = Vec::new();
        {
            let ctx = |t: usize| Ctx {
                slots: &threads.slots[t * n..(t + 1) * n],
                tid: tids[t],
                bid,
                shape: launch.shape,
            };
            let runs = |sh: &Exchanged, t: usize| ctx(t).eval(&sh.guard).is_ok_and(|g| g != 0);
            for sh in shuffles {
                let model = &self.kernel.shuffles[sh.index];
                for t in 0..tids.len() {
                    // Every lane the mask names in the thread's warp runs
                    // it (CUDA), or the result is undefined.
                    let takes_part = |mask: i64| {
                        let warp = t - t % 32;
                        (0..32)
                            .filter(|i| (mask >> i) & 1 == 1)
                            .all(|i| warp + i < tids.len() && runs(sh, warp + i))
                    };
                    let value = match (runs(sh, t), ctx(t).eval(&sh.lane), ctx(t).eval(&sh.mask)) {
                        (true, Ok(lane), Ok(mask)) if takes_part(mask) => model
                            .source_of(t as i64, lane, mask)
                            .filter(|s| (0..tids.len() as i64).contains(s) && runs(sh, *s as usize))
                            .and_then(|s| ctx(s as usize).eval(&sh.source).ok()),
                        _ => None,
                    };
                    results.push((t * n + sh.value as usize, value));
                }
            }
        }
        for (at, value) in results {
            threads.slots[at] = value;
        }
    }

    fn load(&self, mem: &Memory, array: usize, index: i64) -> i64 {
        let a = &self.kernel.arrays[array];
        let at = (self.storage[array], index);
        match a.space {
            MemorySpace::Global => match mem.global.get(&at) {
                Some(v) => *v,
                None => input(&a.name, index),
            },
            // Never-written shared memory: garbage of this block.
            _ => match mem.shared.get(&at) {
                Some(v) => *v,
                None => input(&format!("{}@{}", a.name, mem.block), index),
            },
        }
    }

    fn store(&self, mem: &mut Memory, array: usize, index: i64, value: i64) {
        let at = (self.storage[array], index);
        match self.kernel.arrays[array].space {
            MemorySpace::Global => mem.global.insert(at, value),
            _ => mem.shared.insert(at, value),
        };
    }
}

/// Which outcomes of each guard of a program the runs saw (bit 1: it
/// held, bit 2: it did not).
pub(crate) struct Coverage(Vec<u8>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Options;

    fn program_run(text: &str, name: &str, launch: &Launch) -> Result<Written, RunError> {
        let k = crate::analysis::lower_with_values(text, &Options::default(), name).unwrap();
        let p = Program::new(&k);
        assert!(p.assumptions_hold(launch).unwrap());
        p.run(launch, &mut p.coverage()).map(|(w, _)| w)
    }

    fn launch(block: i64, grid: i64, params: &[(&str, i64)]) -> Launch {
        Launch {
            shape: LaunchShape {
                block: [block, 1, 1],
                grid: [grid, 1, 1],
            },
            params: params.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        }
    }

    /// A warp sum by `__shfl_down_sync` (lane `l` adds lane `l + d`'s
    /// register, its own where that leaves the warp): every thread stops
    /// at the loop's shuffles, then takes its source lane's value of that
    /// iteration. On a block of 16 threads lane 15 would read lane 16's
    /// register, which no thread is: no value, so no result.
    #[test]
    fn the_loops_shuffles_exchange_registers_in_lockstep() {
        let text = "__global__ void k(int *out, const int *in) {\n\
            int acc = in[blockIdx.x * blockDim.x + threadIdx.x];\n\
            for (int d = 16; d > 0; d /= 2)\n\
                acc += __shfl_down_sync(0xffffffff, acc, d);\n\
            if (threadIdx.x == 0) out[blockIdx.x] = acc;\n}\n";
        let written = program_run(text, "k", &launch(32, 2, &[])).unwrap();
        for b in 0..2i64 {
            let want = (0..32).fold(0i64, |s, t| s.wrapping_add(input("in", b * 32 + t)));
            assert_eq!(written[&("out".to_string(), b)], want, "{b}");
        }
        match program_run(text, "k", &launch(16, 1, &[])) {
            Err(RunError::Unsupported(why)) => assert!(why.contains("no concrete value"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn barriers_inside_a_loop_run_phase_by_phase() {
        // Each iteration shifts the block's slice one place left through
        // shared memory (a barrier after the load and after the use); the
        // per-thread running sum is loop-carried state.
        let text = "__global__ void k(int *out, const int *in, int rounds) {\n\
            __shared__ int s[8];\n\
            int t = threadIdx.x;\n\
            int v = in[blockIdx.x * 8 + t];\n\
            int acc = 0;\n\
            for (int r = 0; r < rounds; ++r) {\n\
                s[t] = v;\n\
                __syncthreads();\n\
                v = s[(t + 1) % 8];\n\
                acc += v;\n\
                __syncthreads();\n\
            }\n\
            out[blockIdx.x * 8 + t] = acc;\n}\n";
        let written = program_run(text, "k", &launch(8, 2, &[("rounds", 3)])).unwrap();
        assert_eq!(written.len(), 16);
        for b in 0..2i64 {
            for t in 0..8i64 {
                let at = |i: i64| input("in", b * 8 + (t + i) % 8);
                let want = at(1).wrapping_add(at(2)).wrapping_add(at(3));
                assert_eq!(written[&("out".to_string(), b * 8 + t)], want, "{b} {t}");
            }
        }
    }

    #[test]
    fn a_barrier_some_threads_miss_is_divergence() {
        let text = "__global__ void k(int *out) {\n\
            __shared__ int s[8];\n\
            s[threadIdx.x] = 1;\n\
            if (threadIdx.x < 4) { __syncthreads(); }\n\
            out[threadIdx.x] = s[7 - threadIdx.x];\n}\n";
        let got = program_run(text, "k", &launch(8, 1, &[]));
        assert!(
            matches!(&got, Err(RunError::Divergence(why)) if why.contains("line 4")),
            "{got:?}"
        );
    }

    #[test]
    fn a_break_leaves_the_loop_at_the_end_of_its_iteration() {
        // Thread t writes out[t * 8 + i] for i up to and including the
        // first i with in[...] odd; never past it.
        let text = "__global__ void k(int *out, const int *in) {\n\
            int t = threadIdx.x;\n\
            for (int i = 0; i < 8; ++i) {\n\
                out[t * 8 + i] = 1;\n\
                if (in[t * 8 + i] % 2 != 0) break;\n\
            }\n}\n";
        let written = program_run(text, "k", &launch(4, 1, &[])).unwrap();
        for t in 0..4i64 {
            let first_odd = (0..8)
                .find(|i| input("in", t * 8 + i) % 2 != 0)
                .unwrap_or(7);
            for i in 0..8 {
                let w = written.contains_key(&("out".to_string(), t * 8 + i));
                assert_eq!(w, i <= first_odd, "thread {t} element {i}");
            }
        }
    }

    #[test]
    fn coverage_says_when_a_launch_sees_a_new_guard_outcome() {
        let text = "__global__ void k(int *out, int n) {\n\
            int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
            if (i < n) { out[i] = i; }\n}\n";
        let k = crate::analysis::lower_with_values(text, &Options::default(), "k").unwrap();
        let p = Program::new(&k);
        let mut c = p.coverage();
        let run = |c: &mut Coverage, n: i64| p.run(&launch(8, 1, &[("n", n)]), c).unwrap().1;
        assert!(run(&mut c, 16), "the first run sees the guard hold");
        assert!(!run(&mut c, 20), "all threads inside again: nothing new");
        assert!(run(&mut c, 4), "threads outside: the guard fails");
        assert!(!run(&mut c, 3));
    }
}
