//! The concrete interpreter of `syncscope equiv`: runs every thread of a
//! small launch of a kernel model lowered with read values
//! (`Options::track_values`), on deterministic inputs, and returns what the
//! kernel left in global memory. Arithmetic on values is the model's
//! integer arithmetic (64-bit, wrapping): one fixed interpretation of the
//! operations the proof treats as uninterpreted.

use crate::model::{AccessKind, BinOp, Expr, Kernel, MemorySpace, Stmt, UnOp, VarKind};
use std::collections::{BTreeMap, HashMap};

/// One concrete launch: sizes and the values of the scalar parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Launch {
    pub block: [i64; 3],
    pub grid: [i64; 3],
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

struct Thread<'l> {
    launch: &'l Launch,
    tid: [i64; 3],
    bid: [i64; 3],
    vars: HashMap<String, i64>,
}

impl Thread<'_> {
    fn eval(&self, e: &Expr) -> Result<i64, String> {
        Ok(match e {
            Expr::Const(c) => *c,
            Expr::Var(v) => match v.kind {
                VarKind::ThreadIdx(d) => self.tid[d as usize],
                VarKind::BlockIdx(d) => self.bid[d as usize],
                VarKind::BlockDim(d) => self.launch.block[d as usize],
                VarKind::GridDim(d) => self.launch.grid[d as usize],
                _ => match self
                    .launch
                    .params
                    .get(&*v.name)
                    .or_else(|| self.vars.get(&*v.name))
                    .copied()
                    .or_else(|| super::float_literal(v))
                {
                    Some(x) => x,
                    None => return Err(format!("`{}` has no concrete value in the model", v.name)),
                },
            },
            Expr::Un(op, a) => {
                let x = self.eval(a)?;
                match op {
                    UnOp::Neg => x.wrapping_neg(),
                    UnOp::Not => (x == 0) as i64,
                    UnOp::BitNot => !x,
                }
            }
            Expr::Pow2(a) => {
                let x = self.eval(a)?;
                if !(0..63).contains(&x) {
                    return Err("2^e out of range".into());
                }
                1i64 << x
            }
            Expr::Ite(c, a, b) => {
                if self.eval(c)? != 0 {
                    self.eval(a)?
                } else {
                    self.eval(b)?
                }
            }
            Expr::Bin(op, a, b) => {
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
                    BinOp::Div | BinOp::Rem if y == 0 => return Err("division by zero".into()),
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

struct Memory<'k> {
    kernel: &'k Kernel,
    global: Written,
    shared: HashMap<(usize, i64), i64>,
    block: i64,
}

impl Memory<'_> {
    fn load(&self, array: usize, index: i64) -> i64 {
        let a = &self.kernel.arrays[array];
        match a.space {
            MemorySpace::Global => *self
                .global
                .get(&(a.name.clone(), index))
                .unwrap_or(&input(&a.name, index)),
            // Never-written shared memory: garbage of this block.
            _ => *self
                .shared
                .get(&(array, index))
                .unwrap_or(&input(&format!("{}@{}", a.name, self.block), index)),
        }
    }
    fn store(&mut self, array: usize, index: i64, value: i64) {
        let a = &self.kernel.arrays[array];
        match a.space {
            MemorySpace::Global => {
                self.global.insert((a.name.clone(), index), value);
            }
            _ => {
                self.shared.insert((array, index), value);
            }
        }
    }
}

/// Iterations a loop may run before the run gives up.
const MAX_ITERATIONS: i64 = 1 << 14;

fn exec(stmts: &[Stmt], t: &mut Thread, mem: &mut Memory) -> Result<(), String> {
    for s in stmts {
        match s {
            Stmt::Access(a) => {
                if t.eval(&a.guard)? == 0 {
                    continue;
                }
                if a.width != 1 {
                    return Err(format!("`{}` accesses a byte range", a.text));
                }
                let index = t.eval(&a.index)?;
                match a.kind {
                    AccessKind::Read => {
                        let v = mem.load(a.array, index);
                        if let Some(Expr::Var(u)) = &a.value {
                            t.vars.insert(u.name.to_string(), v);
                        }
                    }
                    AccessKind::Write => {
                        let Some(value) = &a.value else {
                            return Err(format!("the value `{}` writes is not modelled", a.text));
                        };
                        let v = t.eval(value)?;
                        mem.store(a.array, index, v);
                    }
                    AccessKind::Atomic => {
                        return Err(format!("`{}` is an atomic update", a.text));
                    }
                }
            }
            Stmt::Barrier(_) => {
                return Err("a barrier inside a loop or conditional".into());
            }
            Stmt::If(a, b) => {
                exec(a, t, mem)?;
                exec(b, t, mem)?;
            }
            Stmt::Loop(l) => {
                // Values the loop accumulates (`Kernel::folds`): from their
                // start value, updated after each iteration.
                let kernel = mem.kernel;
                let folds: Vec<_> = kernel.folds.iter().filter(|f| f.loop_id == l.id).collect();
                // A value that cannot be computed (the loop's reads did not
                // run: the thread is outside the code's condition) stays
                // without a value; using it is an error.
                for f in &folds {
                    match t.eval(&f.init) {
                        Ok(x) => t.vars.insert(f.carried.name.to_string(), x),
                        Err(_) => t.vars.remove(&*f.carried.name),
                    };
                }
                let mut k = 0;
                loop {
                    t.vars.insert(l.counter.name.to_string(), k);
                    if t.eval(&l.guard)? == 0 {
                        break;
                    }
                    exec(&l.body, t, mem)?;
                    for f in &folds {
                        match t.eval(&f.next) {
                            Ok(x) => t.vars.insert(f.carried.name.to_string(), x),
                            Err(_) => t.vars.remove(&*f.carried.name),
                        };
                    }
                    k += 1;
                    if k > MAX_ITERATIONS {
                        return Err("a loop ran too long".into());
                    }
                }
                for f in &folds {
                    match t.vars.get(&*f.carried.name).copied() {
                        Some(x) => t.vars.insert(f.exit.name.to_string(), x),
                        None => t.vars.remove(&*f.exit.name),
                    };
                }
            }
            Stmt::LoopExit(_) => {}
        }
    }
    Ok(())
}

/// The top-level statements between barriers (a barrier elsewhere is not
/// supported by this interpreter).
pub(crate) fn phases(kernel: &Kernel) -> Result<Vec<&[Stmt]>, String> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, s) in kernel.body.iter().enumerate() {
        if let Stmt::Barrier(b) = s {
            if !b.guard.is_true() {
                return Err("a barrier under a condition".into());
            }
            out.push(&kernel.body[start..i]);
            start = i + 1;
        }
    }
    out.push(&kernel.body[start..]);
    Ok(out)
}

/// Whether the kernel's preconditions (`__requires`) hold for this launch.
pub(crate) fn assumptions_hold(kernel: &Kernel, launch: &Launch) -> Result<bool, String> {
    let t = Thread {
        launch,
        tid: [0; 3],
        bid: [0; 3],
        vars: HashMap::new(),
    };
    for a in &kernel.assumptions {
        if t.eval(a)? == 0 {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Runs the kernel: blocks one after another, and in each block every
/// thread through one barrier interval before any starts the next (exact
/// for a kernel free of races, which `equiv` checks first).
pub(crate) fn run(kernel: &Kernel, launch: &Launch) -> Result<Written, String> {
    let phases = phases(kernel)?;
    let mut mem = Memory {
        kernel,
        global: Written::new(),
        shared: HashMap::new(),
        block: 0,
    };
    let mut written = Written::new();
    let [gx, gy, gz] = launch.grid;
    let [bx, by, bz] = launch.block;
    let mut block_no = 0;
    for bk in 0..gz {
        for bj in 0..gy {
            for bi in 0..gx {
                mem.shared.clear();
                mem.block = block_no;
                block_no += 1;
                let mut threads = Vec::new();
                for k in 0..bz {
                    for j in 0..by {
                        for i in 0..bx {
                            threads.push(Thread {
                                launch,
                                tid: [i, j, k],
                                bid: [bi, bj, bk],
                                vars: HashMap::new(),
                            });
                        }
                    }
                }
                for phase in &phases {
                    for t in &mut threads {
                        exec(phase, t, &mut mem)?;
                    }
                }
            }
        }
    }
    for (k, v) in mem.global {
        written.insert(k, v);
    }
    Ok(written)
}
