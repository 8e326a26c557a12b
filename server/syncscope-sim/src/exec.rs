//! One GPU thread: a program counter, a value stack and a call stack over
//! the compiled operations (`compile.rs`). `run` executes until the thread
//! synchronises (a barrier, a warp operation), ends, or stops the launch;
//! the scheduler resumes it by pushing the synchronisation's result.

use std::collections::HashMap;

use crate::ast::{Dim3, Program, UnOp};
use crate::compile::{Code, Op, SyncKind};
use crate::memory::{self, Clash, Kind, Who};
use crate::sched::World;
use crate::value::{arith, promote, BinOp, Ptr, Scal, Ty, Value};
use crate::{Access, Outcome, Race};

/// The outcome that stops a run is boxed: results travel through every
/// operation, and a small error keeps them cheap to return.
type R<T> = Result<T, Box<Outcome>>;

fn unsup<T>(what: impl Into<String>) -> R<T> {
    Err(Box::new(Outcome::Unsupported(what.into())))
}

impl From<String> for Box<Outcome> {
    fn from(s: String) -> Box<Outcome> {
        Box::new(Outcome::Unsupported(s))
    }
}

/// How a thread stopped running.
pub enum Yield {
    /// At a block barrier; `key` identifies the barrier and its dynamic
    /// occurrence (loop iterations and call sites around it); `pred` is the
    /// predicate of `__syncthreads_count` and friends.
    Barrier {
        key: (usize, Vec<u64>),
        line: usize,
        pred: Option<bool>,
    },
    Warp {
        op: WarpOp,
        mask: u32,
        line: usize,
    },
    Done,
    /// Stopped after an atomic (`Order::Interleaved`), to go on later in
    /// the same phase.
    Preempted,
    Stop(Outcome),
}

#[derive(Clone, Debug)]
pub enum WarpOp {
    Sync,
    Shfl {
        kind: ShflKind,
        value: Value,
        lane: i64,
        width: i64,
    },
    Vote {
        kind: VoteKind,
        pred: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShflKind {
    Idx,
    Up,
    Down,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteKind {
    Ballot,
    All,
    Any,
}

struct Frame {
    func: usize,
    /// The loop context's length at the function's start.
    ctx_base: usize,
    ret_pc: usize,
    base: usize,
    ctx_len: usize,
}

/// What every thread of a block shares and only reads.
pub struct Env<'a> {
    pub prog: &'a Program,
    pub code: &'a Code,
    pub block: [u32; 3],
    pub block_dim: [u32; 3],
    pub grid_dim: [u32; 3],
    pub preempt_atomics: bool,
    pub continue_out_of_bounds: bool,
    pub race_lines: Option<&'a [usize]>,
}

pub struct ThreadState {
    pub tid: u32,
    pub thread: [u32; 3],
    pc: usize,
    stack: Vec<Value>,
    locals: Vec<Value>,
    frames: Vec<Frame>,
    ctx: Vec<u64>,
    local_bufs: HashMap<usize, usize>,
    temps: HashMap<(usize, usize), usize>,
}

const DONE: usize = usize::MAX;

impl ThreadState {
    pub fn new(tid: u32, thread: [u32; 3], env: &Env, kernel: usize, args: &[Value]) -> Self {
        let slots = env.code.slots[kernel];
        let mut locals = vec![Value::Void; slots.max(args.len())];
        locals[..args.len()].clone_from_slice(args);
        ThreadState {
            tid,
            thread,
            pc: env.code.entry[kernel],
            stack: Vec::with_capacity(16),
            locals,
            frames: vec![Frame {
                func: kernel,
                ctx_base: 0,
                ret_pc: DONE,
                base: 0,
                ctx_len: 0,
            }],
            ctx: Vec::new(),
            local_bufs: HashMap::new(),
            temps: HashMap::new(),
        }
    }

    /// The result of the synchronisation the thread stopped at.
    pub fn resume_with(&mut self, v: Value) {
        self.stack.push(v);
    }

    fn pop(&mut self) -> R<Value> {
        self.stack
            .pop()
            .ok_or_else(|| Box::new(Outcome::Unsupported("internal: an empty stack".into())))
    }

    fn base(&self) -> usize {
        self.frames.last().map_or(0, |f| f.base)
    }

    /// Runs until the thread synchronises, ends or stops the launch.
    pub fn run(&mut self, env: &Env, w: &mut World) -> Yield {
        match self.run_inner(env, w) {
            Ok(y) => y,
            Err(o) => Yield::Stop(*o),
        }
    }

    fn run_inner(&mut self, env: &Env, w: &mut World) -> R<Yield> {
        let ops = &env.code.ops;
        loop {
            w.steps += 1;
            if w.steps > w.max_steps {
                return Err(Box::new(Outcome::StepLimit));
            }
            let Some(op) = ops.get(self.pc) else {
                return unsup("internal: the program counter left the code");
            };
            self.pc += 1;
            match op {
                Op::Lit(v) => self.stack.push(v.clone()),
                Op::Local(s) => {
                    let v = self.locals[self.base() + s].clone();
                    self.stack.push(v);
                }
                Op::SetLocal(s, ty) => {
                    let b = self.base();
                    let v = self.pop()?;
                    let v = if *ty == Ty::Void {
                        // `auto`: the type of its initialiser.
                        same_type_as(&self.locals[b + s], v)?
                    } else {
                        v.convert(ty)?
                    };
                    self.locals[b + s] = v.clone();
                    self.stack.push(v);
                }
                Op::InitLocal(s, ty) => {
                    let v = self.pop()?;
                    let v = if *ty == Ty::Void {
                        match v {
                            Value::Void => return unsup("auto from a void value"),
                            v => v,
                        }
                    } else {
                        v.convert(ty)?
                    };
                    let b = self.base();
                    self.locals[b + s] = v;
                }
                Op::Array {
                    slot,
                    decl,
                    ty,
                    cells,
                    zero,
                    line,
                } => {
                    let buf = match self.local_bufs.get(decl) {
                        Some(b) => {
                            if *zero {
                                for (c, t) in w.bufs[*b].data.iter_mut().zip(cells) {
                                    *c = Value::zero(t);
                                }
                            }
                            *b
                        }
                        None => {
                            let what = if matches!(ty, Ty::Struct(..)) {
                                "local struct"
                            } else {
                                "local array"
                            };
                            w.bufs.push(memory::Buffer::new(
                                format!("{what} (line {line})"),
                                cells.iter().map(Value::zero).collect(),
                                false,
                            ));
                            let b = w.bufs.len() - 1;
                            self.local_bufs.insert(*decl, b);
                            b
                        }
                    };
                    let to = match ty {
                        Ty::Array(elem, _) => (**elem).clone(),
                        other => other.clone(),
                    };
                    let b = self.base();
                    self.locals[b + slot] = Value::Ptr(Ptr { buf, off: 0, to });
                }
                Op::InitCopy { slot, cells, line } => {
                    let src = self.pop_ptr()?;
                    let b = self.base();
                    let Value::Ptr(dst) = self.locals[b + slot].clone() else {
                        return unsup("internal: a struct slot without its buffer");
                    };
                    self.copy(env, w, &src, &dst, *cells, *line)?;
                }
                Op::Field(off, ty) => {
                    let p = self.pop_ptr()?;
                    if !matches!(p.to, Ty::Struct(..)) {
                        return unsup("a member of something that is not a struct");
                    }
                    self.stack.push(Value::Ptr(Ptr {
                        buf: p.buf,
                        off: p.off.saturating_add(*off as i64),
                        to: ty.clone(),
                    }));
                }
                Op::Copy { cells, line } => {
                    let src = self.pop_ptr()?;
                    let dst = self.pop_ptr()?;
                    self.copy(env, w, &src, &dst, *cells, *line)?;
                    self.stack.push(Value::Ptr(dst));
                }
                Op::Make { ty, cells, site } => {
                    let vals = self
                        .stack
                        .split_off(self.stack.len().saturating_sub(cells.len()));
                    let buf = self.temp(w, (*site, 0), cells);
                    for (i, (v, t)) in vals.into_iter().zip(cells).enumerate() {
                        w.bufs[buf].data[i] = v.convert(t)?;
                    }
                    self.stack.push(Value::Ptr(Ptr {
                        buf,
                        off: 0,
                        to: ty.clone(),
                    }));
                }
                Op::ArrayInit { slot, index, leaf } => {
                    let v = self.pop()?.convert(leaf)?;
                    let b = self.base();
                    let Value::Ptr(p) = &self.locals[b + slot] else {
                        return unsup("internal: an array slot without its buffer");
                    };
                    w.bufs[p.buf].data[*index] = v;
                }
                Op::VarPtr(i) => {
                    let buf = w.var_bufs[*i];
                    if buf == usize::MAX {
                        return unsup(format!(
                            "the variable `{}` (its type is not modelled)",
                            env.prog.vars[*i].name
                        ));
                    }
                    self.stack.push(Value::Ptr(Ptr {
                        buf,
                        off: 0,
                        to: env.prog.vars[*i].ty.clone(),
                    }));
                }
                Op::Dim(d, k) => {
                    let k = *k as usize;
                    let v = match d {
                        Dim3::ThreadIdx => self.thread[k],
                        Dim3::BlockIdx => env.block[k],
                        Dim3::BlockDim => env.block_dim[k],
                        Dim3::GridDim => env.grid_dim[k],
                    };
                    self.stack.push(Value::uint(v.into()));
                }
                Op::Un(op) => {
                    let v = self.pop()?;
                    self.stack.push(unary(*op, v)?);
                }
                Op::Bin(op, line) => {
                    let y = self.pop()?;
                    let x = self.pop()?;
                    let exact = exact_result(*op, &x, &y);
                    let r = binary(*op, x, y)?;
                    self.check_overflow(env, exact, &r, *line)?;
                    self.stack.push(r);
                }
                Op::ToBool => {
                    let v = self.pop()?;
                    self.stack.push(Value::of_bool(v.truthy()?));
                }
                Op::Cast(t) => {
                    let v = self.pop()?;
                    let v = match (v, t) {
                        // A view of the same cells as another type (a
                        // `float*` as `float4*`): allowed when every cell
                        // of both types has one and the same scalar type.
                        (Value::Ptr(p), Ty::Ptr(to))
                            if p.to != **to && **to != Ty::Void && p.to != Ty::Void =>
                        {
                            let (mut a, mut b) = (Vec::new(), Vec::new());
                            crate::ast::cell_types(&p.to, &env.prog.structs, &mut a);
                            crate::ast::cell_types(to, &env.prog.structs, &mut b);
                            let one = a.first().cloned();
                            if one.is_none() || !a.iter().chain(&b).all(|c| Some(c) == one.as_ref())
                            {
                                return unsup("a cast between pointers to different types");
                            }
                            Value::Ptr(Ptr {
                                to: (**to).clone(),
                                ..p
                            })
                        }
                        (v, t) => v.convert(t)?,
                    };
                    self.stack.push(v);
                }
                Op::Offset => {
                    let i = self.pop()?;
                    let b = self.pop()?;
                    self.stack.push(Value::Ptr(offset(b, &i, 1)?));
                }
                Op::Deref => match self.pop()? {
                    p @ Value::Ptr(_) => self.stack.push(p),
                    Value::Null => return unsup("a null pointer dereferenced"),
                    _ => return unsup("a number dereferenced"),
                },
                Op::Load(line) => {
                    let p = self.pop_ptr()?;
                    let v = self.load(env, w, &p, *line, Kind::Read)?;
                    self.stack.push(v);
                }
                Op::Store(line) => {
                    let v = self.pop()?;
                    let p = self.pop_ptr()?;
                    let v = self.store(env, w, &p, v, *line)?;
                    self.stack.push(v);
                }
                Op::Compound(op, line) => {
                    let r = self.pop()?;
                    let p = self.pop_ptr()?;
                    let old = self.load(env, w, &p, *line, Kind::Read)?;
                    let exact = exact_result(*op, &old, &r);
                    let new = binary(*op, old, r)?;
                    self.check_overflow(env, exact, &new, *line)?;
                    let v = self.store(env, w, &p, new, *line)?;
                    self.stack.push(v);
                }
                Op::IncDecMem { inc, pre, line } => {
                    let p = self.pop_ptr()?;
                    let old = self.load(env, w, &p, *line, Kind::Read)?;
                    let op = if *inc { BinOp::Add } else { BinOp::Sub };
                    let exact = exact_result(op, &old, &Value::int(1));
                    let new = binary(op, old.clone(), Value::int(1))?;
                    self.check_overflow(env, exact, &new, *line)?;
                    let new = self.store(env, w, &p, new, *line)?;
                    self.stack.push(if *pre { new } else { old });
                }
                Op::Dup => {
                    let v = self.stack.last().cloned();
                    match v {
                        Some(v) => self.stack.push(v),
                        None => return unsup("internal: an empty stack"),
                    }
                }
                Op::Pop => {
                    self.pop()?;
                }
                Op::Jmp(t) => self.pc = *t,
                Op::JmpIfFalse(t) => {
                    if !self.pop()?.truthy()? {
                        self.pc = *t;
                    }
                }
                Op::JmpIfTrue(t) => {
                    if self.pop()?.truthy()? {
                        self.pc = *t;
                    }
                }
                Op::Switch { labels, default } => {
                    let v = self.pop()?;
                    let mut to = *default;
                    for (l, at) in labels {
                        if arith(BinOp::Eq, &v, l)?.truthy()? {
                            to = *at;
                            break;
                        }
                    }
                    self.pc = to;
                }
                Op::Call {
                    func,
                    args,
                    site,
                    line,
                } => {
                    if self.frames.len() > 64 {
                        return unsup("recursion deeper than 64 calls");
                    }
                    let f = &env.prog.funcs[*func];
                    if f.params.len() != *args && f.unsupported.is_none() {
                        return unsup(format!("`{}` called with {args} arguments", f.name));
                    }
                    if self.stack.len() < *args {
                        return unsup("internal: missing arguments");
                    }
                    let vals = self.stack.split_off(self.stack.len() - args);
                    let base = self.locals.len();
                    let slots = env.code.slots[*func].max(*args);
                    self.locals.resize(base + slots, Value::Void);
                    for (i, (v, p)) in vals.into_iter().zip(&f.params).enumerate() {
                        let v = v.convert(&p.ty)?;
                        // A struct passed by value: the callee gets a copy.
                        let v = match (&p.ty, v) {
                            (Ty::Struct(_, n), Value::Ptr(src)) => {
                                let mut cells = Vec::new();
                                crate::ast::cell_types(&p.ty, &env.prog.structs, &mut cells);
                                let buf = self.temp(w, (usize::MAX - *func, i), &cells);
                                let dst = Ptr {
                                    buf,
                                    off: 0,
                                    to: p.ty.clone(),
                                };
                                self.copy(env, w, &src, &dst, *n, *line)?;
                                Value::Ptr(dst)
                            }
                            (_, v) => v,
                        };
                        self.locals[base + i] = v;
                    }
                    self.frames.push(Frame {
                        func: *func,
                        ctx_base: self.ctx.len() + 1,
                        ret_pc: self.pc,
                        base,
                        ctx_len: self.ctx.len(),
                    });
                    self.ctx.push(*site as u64);
                    self.pc = env.code.entry[*func];
                }
                Op::Ret => {
                    let v = self.pop()?;
                    let Some(f) = self.frames.pop() else {
                        return unsup("internal: a return without a frame");
                    };
                    self.locals.truncate(f.base);
                    self.ctx.truncate(f.ctx_len);
                    if f.ret_pc == DONE {
                        return Ok(Yield::Done);
                    }
                    let v = match &env.prog.funcs[f.func].ret {
                        Ty::Void => Value::Void,
                        t => v.convert(t)?,
                    };
                    self.stack.push(v);
                    self.pc = f.ret_pc;
                }
                Op::LoopEnter => self.ctx.push(0),
                Op::LoopNext => {
                    if let Some(n) = self.ctx.last_mut() {
                        *n += 1;
                    }
                }
                Op::LoopExit => {
                    self.ctx.pop();
                }
                Op::Goto { to, depth } => {
                    let base = self.frames.last().map_or(0, |f| f.ctx_base);
                    self.ctx.truncate(base + depth);
                    self.pc = *to;
                }
                Op::Sync { kind, line, site } => return self.sync(*kind, *line, *site),
                Op::Builtin { name, args, line } => {
                    let vals = self.stack.split_off(self.stack.len().saturating_sub(*args));
                    let v = if name.starts_with("atomic") {
                        let v = self.atomic(env, w, name, vals, *line)?;
                        if env.preempt_atomics {
                            self.stack.push(v);
                            return Ok(Yield::Preempted);
                        }
                        v
                    } else if name == "__ldg" && vals.len() == 1 {
                        match &vals[0] {
                            Value::Ptr(p) => self.load(env, w, p, *line, Kind::Read)?,
                            _ => return unsup("__ldg of a non-pointer"),
                        }
                    } else {
                        math(name, &vals)?
                    };
                    self.stack.push(v);
                }
                Op::Group {
                    method,
                    args,
                    line,
                    site,
                } => {
                    let vals = self.stack.split_off(self.stack.len().saturating_sub(*args));
                    let g = match self.pop()? {
                        Value::Group(g) => g,
                        _ => return unsup(format!("the method call `.{method}()`")),
                    };
                    if let Some(y) = self.group_method(env, g, method, vals, *line, *site)? {
                        return Ok(y);
                    }
                }
                Op::Require => {
                    if !self.pop()?.truthy()? {
                        return Err(Box::new(Outcome::Vacuous));
                    }
                }
                Op::Assert(line) => {
                    if !self.pop()?.truthy()? {
                        return Err(Box::new(Outcome::AssertionFailed {
                            thread: self.thread,
                            block: env.block,
                            line: *line,
                        }));
                    }
                }
                Op::Fail(what) => return unsup(what.clone()),
            }
        }
    }

    /// A method of group `g` (0: the block, N: a tile of N lanes): a value
    /// pushed, or a synchronisation to stop at.
    fn group_method(
        &mut self,
        env: &Env,
        g: u32,
        method: &str,
        vals: Vec<Value>,
        line: usize,
        site: usize,
    ) -> R<Option<Yield>> {
        let threads: u32 = env.block_dim.iter().product();
        let lane = self.tid % 32;
        let tile_mask = if g == 32 {
            u32::MAX
        } else {
            ((1u32 << g) - 1) << (lane / g.max(1) * g)
        };
        let v = match (g, method, vals.len()) {
            (0, "sync", 0) => {
                return Ok(Some(Yield::Barrier {
                    key: (site, self.ctx.clone()),
                    line,
                    pred: None,
                }))
            }
            (_, "sync", 0) => {
                return Ok(Some(Yield::Warp {
                    op: WarpOp::Sync,
                    mask: tile_mask,
                    line,
                }))
            }
            (0, "thread_rank", 0) => Value::uint(self.tid.into()),
            (0, "size" | "num_threads", 0) => Value::uint(threads.into()),
            (_, "thread_rank", 0) => Value::uint((self.tid % g).into()),
            (_, "size" | "num_threads", 0) => Value::uint(g.into()),
            (_, "meta_group_rank", 0) if g > 0 => Value::uint((self.tid / g).into()),
            (_, "meta_group_size", 0) if g > 0 => Value::uint(threads.div_ceil(g).into()),
            (1.., "shfl" | "shfl_up" | "shfl_down" | "shfl_xor", 2) => {
                let kind = match method {
                    "shfl" => ShflKind::Idx,
                    "shfl_up" => ShflKind::Up,
                    "shfl_down" => ShflKind::Down,
                    _ => ShflKind::Xor,
                };
                let value = vals[0].clone();
                if matches!(
                    value,
                    Value::Ptr(_) | Value::Null | Value::Void | Value::Group(_)
                ) {
                    return unsup("a shuffle of a pointer");
                }
                return Ok(Some(Yield::Warp {
                    op: WarpOp::Shfl {
                        kind,
                        value,
                        lane: vals[1].as_i128()? as i64,
                        width: g.into(),
                    },
                    mask: tile_mask,
                    line,
                }));
            }
            (1.., "any" | "all", 1) => {
                let kind = if method == "any" {
                    VoteKind::Any
                } else {
                    VoteKind::All
                };
                return Ok(Some(Yield::Warp {
                    op: WarpOp::Vote {
                        kind,
                        pred: vals[0].truthy()?,
                    },
                    mask: tile_mask,
                    line,
                }));
            }
            _ => return unsup(format!("the group method `{method}`")),
        };
        self.stack.push(v);
        Ok(None)
    }

    /// Copies `cells` cells from `src` to `dst`, each a checked access.
    fn copy(
        &self,
        env: &Env,
        w: &mut World,
        src: &Ptr,
        dst: &Ptr,
        cells: usize,
        line: usize,
    ) -> R<()> {
        for i in 0..cells as i64 {
            let cell = |p: &Ptr| Ptr {
                buf: p.buf,
                off: p.off.saturating_add(i),
                to: Ty::S(Scal::I8),
            };
            let s = cell(src);
            let v = match self.access(env, w, &s, Kind::Read, line, None)? {
                Some(off) => w.bufs[s.buf].data[off].clone(),
                None => Value::zero(&s.to),
            };
            let d = cell(dst);
            if let Some(off) = self.access(env, w, &d, Kind::Write, line, Some(&v))? {
                w.bufs[d.buf].data[off] = v;
            }
        }
        Ok(())
    }

    /// This thread's temporary buffer for `key` (a struct built by
    /// `make_float4`, a struct passed by value).
    fn temp(&mut self, w: &mut World, key: (usize, usize), cells: &[Ty]) -> usize {
        if let Some(b) = self.temps.get(&key) {
            return *b;
        }
        w.bufs.push(memory::Buffer::new(
            "temporary struct".into(),
            cells.iter().map(Value::zero).collect(),
            false,
        ));
        let b = w.bufs.len() - 1;
        self.temps.insert(key, b);
        b
    }

    fn pop_ptr(&mut self) -> R<Ptr> {
        match self.pop()? {
            Value::Ptr(p) => Ok(p),
            Value::Null => unsup("a null pointer dereferenced"),
            _ => unsup("a number used as an address"),
        }
    }

    fn sync(&mut self, kind: SyncKind, line: usize, site: usize) -> R<Yield> {
        let mask_of = |v: &Value| -> R<u32> { Ok(v.as_i128()? as u32) };
        Ok(match kind {
            SyncKind::Barrier => Yield::Barrier {
                key: (site, self.ctx.clone()),
                line,
                pred: None,
            },
            SyncKind::BarrierCount | SyncKind::BarrierAnd | SyncKind::BarrierOr => {
                let p = self.pop()?.truthy()?;
                Yield::Barrier {
                    key: (site, self.ctx.clone()),
                    line,
                    pred: Some(p),
                }
            }
            SyncKind::Warp { has_mask } => {
                let mask = if has_mask {
                    mask_of(&self.pop()?)?
                } else {
                    u32::MAX
                };
                Yield::Warp {
                    op: WarpOp::Sync,
                    mask,
                    line,
                }
            }
            SyncKind::Shfl { kind, has_width } => {
                let width = if has_width {
                    self.pop()?.as_i128()? as i64
                } else {
                    32
                };
                let lane = self.pop()?.as_i128()? as i64;
                let value = self.pop()?;
                let mask = mask_of(&self.pop()?)?;
                if !(1..=32).contains(&width) || width & (width - 1) != 0 {
                    return unsup("a shuffle width that is not a power of two up to 32");
                }
                if matches!(
                    value,
                    Value::Ptr(_) | Value::Null | Value::Void | Value::Group(_)
                ) {
                    return unsup("a shuffle of a pointer");
                }
                let kind = match kind {
                    0 => ShflKind::Idx,
                    1 => ShflKind::Up,
                    2 => ShflKind::Down,
                    _ => ShflKind::Xor,
                };
                Yield::Warp {
                    op: WarpOp::Shfl {
                        kind,
                        value,
                        lane,
                        width,
                    },
                    mask,
                    line,
                }
            }
            SyncKind::Vote { kind } => {
                let pred = self.pop()?.truthy()?;
                let mask = mask_of(&self.pop()?)?;
                let kind = match kind {
                    0 => VoteKind::Ballot,
                    1 => VoteKind::All,
                    _ => VoteKind::Any,
                };
                Yield::Warp {
                    op: WarpOp::Vote { kind, pred },
                    mask,
                    line,
                }
            }
        })
    }

    /// A signed result that is not the mathematical one overflowed:
    /// undefined behaviour, which stops the run (`Outcome::SignedOverflow`).
    fn check_overflow(&self, env: &Env, exact: Option<i128>, r: &Value, line: usize) -> R<()> {
        match (exact, r) {
            (Some(e), Value::Int(v, s)) if s.signed() && *v != e => {
                Err(Box::new(Outcome::SignedOverflow {
                    thread: self.thread,
                    block: env.block,
                    line,
                }))
            }
            _ => Ok(()),
        }
    }

    /// Bounds and happens-before check of an access; the element's index
    /// (`None`: out of bounds, skipped under `continue_out_of_bounds`).
    /// `value`: what a plain write stores.
    fn access(
        &self,
        env: &Env,
        w: &mut World,
        p: &Ptr,
        kind: Kind,
        line: usize,
        value: Option<&Value>,
    ) -> R<Option<usize>> {
        let len = w.bufs[p.buf].data.len() as i64;
        let cells = p.to.cells() as i64;
        if p.off < 0 || p.off.saturating_add(cells) > len {
            let oob = Outcome::OutOfBounds {
                thread: self.thread,
                block: env.block,
                array: w.bufs[p.buf].name.clone(),
                index: p.off,
                line,
            };
            if env.continue_out_of_bounds {
                w.out_of_bounds.get_or_insert(oob);
                return Ok(None);
            }
            return Err(Box::new(oob));
        }
        let off = p.off as usize;
        if !w.bufs[p.buf].tracked {
            return Ok(Some(off));
        }
        let who = Who {
            block: w.block_lin,
            tid: self.tid,
            phase: w.phase,
            clock: &w.clocks[self.tid as usize],
        };
        let bits = value.map_or(0, value_bits);
        let (r, same_value) = match memory::check(&mut w.bufs[p.buf], off, &who, kind, line, bits) {
            Clash::None => return Ok(Some(off)),
            Clash::SameValue(r) => (r, true),
            Clash::Race(r) => (r, false),
        };
        let a = Access {
            thread: w.thread_coords(r.tid),
            block: w.block_coords(r.block),
            line: r.line as usize,
            write: r.kind != Kind::Read,
            atomic: r.kind == Kind::Atomic,
        };
        let b = Access {
            thread: self.thread,
            block: env.block,
            line,
            write: kind != Kind::Read,
            atomic: kind == Kind::Atomic,
        };
        let race = Race {
            array: w.bufs[p.buf].name.clone(),
            index: p.off,
            a,
            b,
            same_value,
        };
        if let Some(lines) = env.race_lines {
            if !lines.contains(&race.a.line) && !lines.contains(&race.b.line) {
                w.other_race.get_or_insert(race);
                return Ok(Some(off));
            }
        }
        if same_value {
            w.same_value.get_or_insert(race);
            return Ok(Some(off));
        }
        Err(Box::new(Outcome::Race(race)))
    }

    fn load(&self, env: &Env, w: &mut World, p: &Ptr, line: usize, kind: Kind) -> R<Value> {
        if let Ty::Array(elem, _) = &p.to {
            // An array names its first element's address.
            return Ok(Value::Ptr(Ptr {
                buf: p.buf,
                off: p.off,
                to: (**elem).clone(),
            }));
        }
        if matches!(p.to, Ty::Struct(..)) {
            // A struct's value is its address; its cells are read where it
            // is copied.
            return Ok(Value::Ptr(p.clone()));
        }
        if !matches!(p.to, Ty::S(_) | Ty::Ptr(_)) {
            return unsup("a load of a void value");
        }
        Ok(match self.access(env, w, p, kind, line, None)? {
            Some(off) => w.bufs[p.buf].data[off].clone(),
            None => Value::zero(&p.to),
        })
    }

    /// Stores `v` converted to the element's type; the value stored.
    fn store(&self, env: &Env, w: &mut World, p: &Ptr, v: Value, line: usize) -> R<Value> {
        let v = v.convert(&p.to)?;
        if let Some(off) = self.access(env, w, p, Kind::Write, line, Some(&v))? {
            w.bufs[p.buf].data[off] = v.clone();
        }
        Ok(v)
    }

    fn atomic(&self, env: &Env, w: &mut World, name: &str, v: Vec<Value>, line: usize) -> R<Value> {
        let base = name.trim_end_matches("_block").trim_end_matches("_system");
        let Some(Value::Ptr(p)) = v.first().cloned() else {
            return unsup(format!("`{name}` on something that is not a pointer"));
        };
        let Ty::S(s) = p.to else {
            return unsup(format!("`{name}` on a non-scalar"));
        };
        // One access for the read-modify-write.
        let Some(off) = self.access(env, w, &p, Kind::Atomic, line, None)? else {
            return Ok(Value::zero(&p.to));
        };
        let old = w.bufs[p.buf].data[off].clone();
        let arg = |i: usize| -> R<Value> {
            match v.get(i) {
                Some(x) => Ok(x.clone().into_scal(s)?),
                None => unsup(format!("`{name}` with too few arguments")),
            }
        };
        let new = match (base, v.len()) {
            ("atomicAdd", 2) => arith(BinOp::Add, &old, &arg(1)?)?,
            ("atomicSub", 2) => arith(BinOp::Sub, &old, &arg(1)?)?,
            ("atomicExch", 2) => arg(1)?,
            ("atomicMin", 2) => minmax(&old, &arg(1)?, true)?,
            ("atomicMax", 2) => minmax(&old, &arg(1)?, false)?,
            ("atomicAnd", 2) => arith(BinOp::And, &old, &arg(1)?)?,
            ("atomicOr", 2) => arith(BinOp::Or, &old, &arg(1)?)?,
            ("atomicXor", 2) => arith(BinOp::Xor, &old, &arg(1)?)?,
            ("atomicInc", 2) => {
                let lim = arg(1)?;
                if arith(BinOp::Ge, &old, &lim)?.truthy()? {
                    Value::Int(0, s)
                } else {
                    arith(BinOp::Add, &old, &Value::Int(1, s))?
                }
            }
            ("atomicDec", 2) => {
                let lim = arg(1)?;
                let zero = Value::Int(0, s);
                if arith(BinOp::Eq, &old, &zero)?.truthy()?
                    || arith(BinOp::Gt, &old, &lim)?.truthy()?
                {
                    lim
                } else {
                    arith(BinOp::Sub, &old, &Value::Int(1, s))?
                }
            }
            ("atomicCAS", 3) => {
                if arith(BinOp::Eq, &old, &arg(1)?)?.truthy()? {
                    arg(2)?
                } else {
                    old.clone()
                }
            }
            _ => return unsup(format!("the atomic `{name}` with {} arguments", v.len())),
        };
        w.bufs[p.buf].data[off] = new.into_scal(s)?;
        Ok(old)
    }
}

/// The bits of a stored value, to compare two writes' values.
fn value_bits(v: &Value) -> u128 {
    match v {
        Value::Int(i, _) => *i as u128,
        // Equal floats have equal bits except 0.0 and -0.0 (compared as
        // different: a conservative answer for "same value").
        Value::Float(f, _) => u128::from(f.to_bits()) | 1 << 100,
        Value::Ptr(p) => (p.buf as u128) << 64 | p.off as u64 as u128 | 1 << 101,
        Value::Null => 1 << 102,
        Value::Void => 1 << 103,
        Value::Group(g) => u128::from(*g) | 1 << 104,
    }
}

/// `v` converted to the type `old` has (an `auto` variable's).
fn same_type_as(old: &Value, v: Value) -> R<Value> {
    Ok(match old {
        Value::Int(_, s) | Value::Float(_, s) => v.into_scal(*s)?,
        _ => v,
    })
}

/// `base + sign*idx` for a pointer `base`.
fn offset(base: Value, idx: &Value, sign: i64) -> R<Ptr> {
    let Value::Ptr(p) = base else {
        return unsup("indexing something that is not an array or pointer");
    };
    if matches!(
        idx,
        Value::Float(..) | Value::Ptr(_) | Value::Null | Value::Void
    ) {
        return unsup("a non-integer index");
    }
    let i = idx.as_i128()?;
    let cells = p.to.cells().max(1) as i128;
    let off = i128::from(p.off) + i128::from(sign) * i * cells;
    let off = off.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
    Ok(Ptr {
        buf: p.buf,
        off,
        to: p.to,
    })
}

fn binary(op: BinOp, x: Value, y: Value) -> R<Value> {
    match (&x, &y) {
        (Value::Ptr(_), Value::Int(..)) if matches!(op, BinOp::Add | BinOp::Sub) => {
            let sign = if op == BinOp::Add { 1 } else { -1 };
            Ok(Value::Ptr(offset(x, &y, sign)?))
        }
        (Value::Int(..), Value::Ptr(_)) if op == BinOp::Add => Ok(Value::Ptr(offset(y, &x, 1)?)),
        (Value::Ptr(a), Value::Ptr(b)) => {
            if a.buf != b.buf {
                return match op {
                    BinOp::Eq => Ok(Value::of_bool(false)),
                    BinOp::Ne => Ok(Value::of_bool(true)),
                    _ => unsup("pointers into different buffers compared"),
                };
            }
            if op == BinOp::Sub {
                let cells = a.to.cells().max(1) as i128;
                return Ok(Value::Int(
                    (i128::from(a.off) - i128::from(b.off)) / cells,
                    Scal::I64,
                ));
            }
            let i = Value::Int(a.off.into(), Scal::I64);
            let j = Value::Int(b.off.into(), Scal::I64);
            Ok(arith(op, &i, &j)?)
        }
        (Value::Ptr(_), Value::Null) | (Value::Null, Value::Ptr(_)) => match op {
            BinOp::Eq => Ok(Value::of_bool(false)),
            BinOp::Ne => Ok(Value::of_bool(true)),
            _ => unsup("a pointer compared with null by order"),
        },
        (Value::Null, Value::Null) => match op {
            BinOp::Eq => Ok(Value::of_bool(true)),
            BinOp::Ne => Ok(Value::of_bool(false)),
            _ => unsup("null compared by order"),
        },
        (Value::Ptr(_), Value::Int(0, _)) | (Value::Int(0, _), Value::Ptr(_))
            if matches!(op, BinOp::Eq | BinOp::Ne) =>
        {
            Ok(Value::of_bool(op == BinOp::Ne))
        }
        (Value::Ptr(_) | Value::Null, _) | (_, Value::Ptr(_) | Value::Null) => {
            unsup("this pointer arithmetic")
        }
        _ => Ok(arith(op, &x, &y)?),
    }
}

pub fn leaf_type(t: &Ty) -> Ty {
    match t {
        Ty::Array(e, _) => leaf_type(e),
        other => other.clone(),
    }
}

pub fn unary(op: UnOp, v: Value) -> Result<Value, String> {
    match (op, &v) {
        (UnOp::Not, _) => Ok(Value::of_bool(!v.truthy()?)),
        (_, Value::Int(i, s)) => {
            let s = promote(*s);
            Ok(match op {
                UnOp::Neg => Value::Int(s.wrap(-i), s),
                UnOp::BitNot => Value::Int(s.wrap(!i), s),
                _ => Value::Int(*i, s),
            })
        }
        (_, Value::Float(f, s)) => match op {
            UnOp::Neg => Ok(Value::Float(-f, *s)),
            UnOp::Plus => Ok(v.clone()),
            _ => Err("~ of a float".into()),
        },
        _ => Err("an arithmetic operator on a pointer".into()),
    }
}

fn minmax(a: &Value, b: &Value, min: bool) -> Result<Value, String> {
    let lt = arith(BinOp::Lt, a, b)?.truthy()?;
    let s = crate::value::common(a.scal().unwrap_or(Scal::I32), b.scal().unwrap_or(Scal::I32));
    let pick = if lt == min { a } else { b };
    pick.clone().into_scal(s)
}

fn f32_or_64(v: &Value) -> Scal {
    match v.scal() {
        Some(Scal::F32) => Scal::F32,
        _ => Scal::F64,
    }
}

/// Math functions and bit intrinsics: no memory, no synchronisation.
fn math(name: &str, v: &[Value]) -> R<Value> {
    let f1 = |s: Scal, g: fn(f64) -> f64| -> R<Value> {
        let x = v[0].as_f64()?;
        let x = if s == Scal::F32 { x as f32 as f64 } else { x };
        let r = g(x);
        Ok(Value::Float(
            if s == Scal::F32 { r as f32 as f64 } else { r },
            s,
        ))
    };
    let f2 = |s: Scal, g: fn(f64, f64) -> f64| -> R<Value> {
        let (x, y) = (v[0].as_f64()?, v[1].as_f64()?);
        let r = g(x, y);
        Ok(Value::Float(
            if s == Scal::F32 { r as f32 as f64 } else { r },
            s,
        ))
    };
    let u32_of = |x: &Value| -> R<u32> { Ok(x.as_i128()? as u32) };
    let n = v.len();
    match (name, n) {
        ("min" | "max", 2) => Ok(minmax(&v[0], &v[1], name == "min")?),
        ("umin" | "umax", 2) => {
            let (a, b) = (
                v[0].clone().into_scal(Scal::U32)?,
                v[1].clone().into_scal(Scal::U32)?,
            );
            Ok(minmax(&a, &b, name == "umin")?)
        }
        ("abs", 1) => match &v[0] {
            Value::Int(i, s) => {
                let s = promote(*s);
                Ok(Value::Int(s.wrap(i.abs()), s))
            }
            other => f1(f32_or_64(other), f64::abs),
        },
        ("fminf", 2) => f2(Scal::F32, f64::min),
        ("fmaxf", 2) => f2(Scal::F32, f64::max),
        ("fmin", 2) => f2(f32_or_64(&v[0]), f64::min),
        ("fmax", 2) => f2(f32_or_64(&v[0]), f64::max),
        ("fabsf", 1) => f1(Scal::F32, f64::abs),
        ("fabs", 1) => f1(f32_or_64(&v[0]), f64::abs),
        ("sqrtf" | "__fsqrt_rn", 1) => f1(Scal::F32, f64::sqrt),
        ("sqrt", 1) => f1(f32_or_64(&v[0]), f64::sqrt),
        ("rsqrtf", 1) => f1(Scal::F32, |x| 1.0 / x.sqrt()),
        ("expf" | "__expf", 1) => f1(Scal::F32, f64::exp),
        ("exp", 1) => f1(f32_or_64(&v[0]), f64::exp),
        ("logf" | "__logf", 1) => f1(Scal::F32, f64::ln),
        ("log", 1) => f1(f32_or_64(&v[0]), f64::ln),
        ("sinf" | "__sinf", 1) => f1(Scal::F32, f64::sin),
        ("cosf" | "__cosf", 1) => f1(Scal::F32, f64::cos),
        ("tanhf", 1) => f1(Scal::F32, f64::tanh),
        ("floorf", 1) => f1(Scal::F32, f64::floor),
        ("ceilf", 1) => f1(Scal::F32, f64::ceil),
        ("floor", 1) => f1(f32_or_64(&v[0]), f64::floor),
        ("ceil", 1) => f1(f32_or_64(&v[0]), f64::ceil),
        ("powf", 2) => f2(Scal::F32, f64::powf),
        ("pow", 2) => f2(f32_or_64(&v[0]), f64::powf),
        ("__fdividef", 2) => f2(Scal::F32, |x, y| x / y),
        ("fmaf", 3) => {
            let (a, b, c) = (v[0].as_f64()?, v[1].as_f64()?, v[2].as_f64()?);
            Ok(Value::Float(
                ((a as f32).mul_add(b as f32, c as f32)) as f64,
                Scal::F32,
            ))
        }
        ("truncf", 1) => f1(Scal::F32, f64::trunc),
        ("roundf", 1) => f1(Scal::F32, f64::round),
        ("exp2f", 1) => f1(Scal::F32, f64::exp2),
        ("log2f" | "__log2f", 1) => f1(Scal::F32, f64::log2),
        ("log10f", 1) => f1(Scal::F32, f64::log10),
        ("tanf", 1) => f1(Scal::F32, f64::tan),
        ("fmodf", 2) => f2(Scal::F32, |x, y| x % y),
        ("__saturatef", 1) => f1(
            Scal::F32,
            |x| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) },
        ),
        ("__float_as_int", 1) => Ok(Value::int(i128::from(
            (v[0].as_f64()? as f32).to_bits() as i32
        ))),
        ("__float_as_uint", 1) => Ok(Value::uint(i128::from((v[0].as_f64()? as f32).to_bits()))),
        ("__int_as_float" | "__uint_as_float", 1) => Ok(Value::Float(
            f64::from(f32::from_bits(v[0].as_i128()? as u32)),
            Scal::F32,
        )),
        ("__implies", 2) => Ok(Value::of_bool(!v[0].truthy()? || v[1].truthy()?)),
        ("isnan", 1) => Ok(Value::of_bool(v[0].as_f64()?.is_nan())),
        ("isinf", 1) => Ok(Value::of_bool(v[0].as_f64()?.is_infinite())),
        ("__popc", 1) => Ok(Value::int(u32_of(&v[0])?.count_ones().into())),
        ("__popcll", 1) => Ok(Value::int((v[0].as_i128()? as u64).count_ones().into())),
        ("__clz", 1) => Ok(Value::int(u32_of(&v[0])?.leading_zeros().into())),
        ("__ffs", 1) => {
            let x = u32_of(&v[0])?;
            Ok(Value::int(
                if x == 0 { 0 } else { x.trailing_zeros() + 1 }.into(),
            ))
        }
        ("__brev", 1) => Ok(Value::uint(u32_of(&v[0])?.reverse_bits().into())),
        ("__mul24" | "__umul24", 2) => {
            let a = v[0].as_i128()? & 0xff_ffff;
            let b = v[1].as_i128()? & 0xff_ffff;
            Ok(if name == "__mul24" {
                Value::int(a * b)
            } else {
                Value::uint(a * b)
            })
        }
        ("__activemask", 0) => unsup("__activemask (which lanes are converged is not modelled)"),
        _ => unsup(format!("the function `{name}` with {n} arguments")),
    }
}

/// The mathematical value of `x op y` for the operators that can overflow
/// (`+`, `-`, `*` of two integers); compared with the machine's result of
/// a signed type, it tells a signed overflow.
fn exact_result(op: BinOp, x: &Value, y: &Value) -> Option<i128> {
    let (Value::Int(a, _), Value::Int(b, _)) = (x, y) else {
        return None;
    };
    match op {
        BinOp::Add => a.checked_add(*b),
        BinOp::Sub => a.checked_sub(*b),
        BinOp::Mul => a.checked_mul(*b),
        _ => None,
    }
}
