//! One GPU thread: a tree-walking interpreter of the kernel's statements.
//!
//! Each simulated thread runs on an OS thread of its own and hands the
//! `World` (all memory and clocks) back to the scheduler whenever it
//! reaches a synchronisation (a barrier, a warp operation) or ends: only
//! one thread runs at a time, so a run is deterministic, and a thread can
//! stop anywhere (inside a device function, inside an expression) and be
//! resumed where it stopped.

use std::collections::HashMap;
use std::sync::mpsc::{Receiver, Sender};

use crate::ast::{Dim3, Ex, Func, Init, Program, Space, St, UnOp, E, S};
use crate::memory::{self, Kind, Who};
use crate::sched::World;
use crate::value::{arith, promote, BinOp, Ptr, Scal, Ty, Value};
use crate::{Access, Outcome, Race};

pub enum Stop {
    Out(Outcome),
    /// The scheduler ended the run; the thread just unwinds.
    Abort,
}

impl From<String> for Stop {
    fn from(s: String) -> Stop {
        Stop::Out(Outcome::Unsupported(s))
    }
}

type R<T> = Result<T, Stop>;

fn unsup<T>(what: impl Into<String>) -> R<T> {
    Err(Stop::Out(Outcome::Unsupported(what.into())))
}

/// What a thread reports when it hands the world back.
pub enum Yield {
    /// At a block barrier; `key` identifies the barrier and its dynamic
    /// occurrence; `pred` is the predicate of `__syncthreads_count` and
    /// friends.
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

pub enum Resume {
    Go(Box<World>, Value),
    Abort,
}

enum Flow {
    Next,
    Break,
    Continue,
    Return(Value),
}

#[derive(Clone, Debug)]
enum Place {
    Slot(usize),
    Mem(Ptr),
}

struct Frame {
    vals: Vec<Value>,
    tys: Vec<Ty>,
}

pub struct Thread<'p> {
    pub prog: &'p Program,
    /// Linear index in the block.
    pub tid: u32,
    pub thread: [u32; 3],
    pub block: [u32; 3],
    pub block_dim: [u32; 3],
    pub grid_dim: [u32; 3],
    world: Option<Box<World>>,
    tx: Sender<(u32, Option<Box<World>>, Yield)>,
    rx: Receiver<Resume>,
    /// Barrier sites' dynamic context: loop iteration counts and call
    /// sites, innermost last.
    ctx: Vec<u64>,
    frames: Vec<Frame>,
    local_bufs: HashMap<usize, usize>,
}

impl<'p> Thread<'p> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        prog: &'p Program,
        tid: u32,
        thread: [u32; 3],
        block: [u32; 3],
        block_dim: [u32; 3],
        grid_dim: [u32; 3],
        tx: Sender<(u32, Option<Box<World>>, Yield)>,
        rx: Receiver<Resume>,
    ) -> Self {
        Thread {
            prog,
            tid,
            thread,
            block,
            block_dim,
            grid_dim,
            world: None,
            tx,
            rx,
            ctx: Vec::new(),
            frames: Vec::new(),
            local_bufs: HashMap::new(),
        }
    }

    /// The thread's whole life: wait to be started, run the kernel, report
    /// how it ended.
    pub fn main(mut self, kernel: &Func, args: Vec<Value>) {
        match self.rx.recv() {
            Ok(Resume::Go(w, _)) => self.world = Some(w),
            _ => return,
        }
        let end = match self.call(kernel, args) {
            Ok(_) => Yield::Done,
            Err(Stop::Out(o)) => Yield::Stop(o),
            Err(Stop::Abort) => return,
        };
        let w = self.world.take();
        let _ = self.tx.send((self.tid, w, end));
    }

    fn w(&mut self) -> &mut World {
        self.world
            .as_mut()
            .expect("a running thread holds the world")
    }

    /// Hands the world to the scheduler and waits to be resumed.
    fn sync(&mut self, y: Yield) -> R<Value> {
        let w = self.world.take();
        if self.tx.send((self.tid, w, y)).is_err() {
            return Err(Stop::Abort);
        }
        match self.rx.recv() {
            Ok(Resume::Go(w, v)) => {
                self.world = Some(w);
                Ok(v)
            }
            _ => Err(Stop::Abort),
        }
    }

    fn step(&mut self) -> R<()> {
        let w = self.w();
        w.steps += 1;
        if w.steps > w.max_steps {
            return Err(Stop::Out(Outcome::StepLimit));
        }
        Ok(())
    }

    fn call(&mut self, f: &Func, args: Vec<Value>) -> R<Value> {
        if let Some(why) = &f.unsupported {
            return unsup(why.clone());
        }
        let Some(body) = &f.body else {
            return unsup(format!("`{}` has no body", f.name));
        };
        if self.frames.len() > 64 {
            return unsup("recursion deeper than 64 calls");
        }
        let mut vals = vec![Value::Void; f.slots.max(args.len())];
        let mut tys = vec![Ty::Void; vals.len()];
        for (i, (a, p)) in args.into_iter().zip(&f.params).enumerate() {
            vals[i] = a.convert(&p.ty)?;
            tys[i] = p.ty.clone();
        }
        self.frames.push(Frame { vals, tys });
        let r = self.stmt(body);
        self.frames.pop();
        match r? {
            Flow::Return(v) => Ok(v),
            _ => Ok(Value::Void),
        }
    }

    fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a frame")
    }

    fn stmts(&mut self, list: &[St]) -> R<Flow> {
        for s in list {
            match self.stmt(s)? {
                Flow::Next => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Next)
    }

    fn stmt(&mut self, st: &St) -> R<Flow> {
        self.step()?;
        match &st.s {
            S::Expr(e) => {
                self.eval(e)?;
            }
            S::Decl {
                slot,
                ty,
                init,
                decl,
            } => self.declare(*slot, ty, init, *decl, st.line)?,
            S::If(c, t, e) => {
                if self.cond(c)? {
                    return self.stmt(t);
                } else if let Some(e) = e {
                    return self.stmt(e);
                }
            }
            S::While(c, body) => {
                self.ctx.push(0);
                let r = self.run_loop(None, Some(c), None, body, false);
                self.ctx.pop();
                return r;
            }
            S::DoWhile(body, c) => {
                self.ctx.push(0);
                let r = self.run_loop(None, Some(c), None, body, true);
                self.ctx.pop();
                return r;
            }
            S::For(init, c, upd, body) => {
                for i in init {
                    self.stmt(i)?;
                }
                self.ctx.push(0);
                let r = self.run_loop(None, c.as_ref(), upd.as_ref(), body, false);
                self.ctx.pop();
                return r;
            }
            S::Block(list) => return self.stmts(list),
            S::Switch(c, body, labels) => {
                let v = self.eval(c)?;
                let mut start = None;
                for (label, at) in labels {
                    if let Some(l) = label {
                        if arith(BinOp::Eq, &v, l)?.truthy()? {
                            start = Some(*at);
                            break;
                        }
                    }
                }
                if start.is_none() {
                    start = labels.iter().find(|(l, _)| l.is_none()).map(|(_, at)| *at);
                }
                if let Some(at) = start {
                    return match self.stmts(&body[at..])? {
                        Flow::Break => Ok(Flow::Next),
                        other => Ok(other),
                    };
                }
            }
            S::Break => return Ok(Flow::Break),
            S::Continue => return Ok(Flow::Continue),
            S::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e)?,
                    None => Value::Void,
                };
                return Ok(Flow::Return(v));
            }
            S::Empty => {}
            S::Unsupported(what) => return unsup(what.clone()),
        }
        Ok(Flow::Next)
    }

    fn run_loop(
        &mut self,
        _init: Option<&St>,
        cond: Option<&Ex>,
        update: Option<&Ex>,
        body: &St,
        do_while: bool,
    ) -> R<Flow> {
        let mut first = true;
        loop {
            if !(do_while && first) {
                if let Some(c) = cond {
                    if !self.cond(c)? {
                        return Ok(Flow::Next);
                    }
                }
            }
            first = false;
            self.step()?;
            match self.stmt(body)? {
                Flow::Break => return Ok(Flow::Next),
                Flow::Return(v) => return Ok(Flow::Return(v)),
                Flow::Next | Flow::Continue => {}
            }
            if let Some(u) = update {
                self.eval(u)?;
            }
            if let Some(n) = self.ctx.last_mut() {
                *n += 1;
            }
        }
    }

    fn declare(&mut self, slot: usize, ty: &Ty, init: &Init, decl: usize, line: usize) -> R<()> {
        match ty {
            Ty::Array(elem, _) => {
                let buf = match self.local_bufs.get(&decl) {
                    Some(b) => *b,
                    None => {
                        let cells = ty.cells();
                        let leaf = leaf_type(ty);
                        let w = self.w();
                        w.bufs.push(memory::Buffer::new(
                            format!("local array (line {line})"),
                            vec![Value::zero(&leaf); cells],
                            false,
                        ));
                        let b = w.bufs.len() - 1;
                        self.local_bufs.insert(decl, b);
                        b
                    }
                };
                let p = Ptr {
                    buf,
                    off: 0,
                    to: (**elem).clone(),
                };
                if let Init::List(items) = init {
                    let leaf = leaf_type(ty);
                    let mut flat = Vec::new();
                    flatten(items, &mut flat);
                    for (i, e) in flat.into_iter().enumerate() {
                        if i >= ty.cells() {
                            return unsup("an initialiser longer than its array");
                        }
                        let v = self.eval(e)?.convert(&leaf)?;
                        self.w().bufs[buf].data[i] = v;
                    }
                } else if let Init::Expr(_) = init {
                    return unsup("an array initialised from an expression");
                }
                let f = self.frame();
                f.vals[slot] = Value::Ptr(p);
                f.tys[slot] = Ty::Ptr(elem.clone());
            }
            _ => {
                let v = match init {
                    Init::None => Value::zero(ty),
                    Init::Expr(e) => self.eval(e)?.convert(ty)?,
                    Init::List(items) if items.len() == 1 => match &items[0] {
                        Init::Expr(e) => self.eval(e)?.convert(ty)?,
                        _ => return unsup("a nested initialiser"),
                    },
                    Init::List(items) if items.is_empty() => Value::zero(ty),
                    Init::List(_) => return unsup("a braced initialiser of a scalar"),
                };
                let f = self.frame();
                f.vals[slot] = v;
                f.tys[slot] = ty.clone();
            }
        }
        Ok(())
    }

    fn cond(&mut self, e: &Ex) -> R<bool> {
        Ok(self.eval(e)?.truthy()?)
    }

    fn who_access(&mut self, p: &Ptr, kind: Kind, line: usize) -> R<usize> {
        let tid = self.tid;
        let (thread, block) = (self.thread, self.block);
        let w = self
            .world
            .as_mut()
            .expect("a running thread holds the world");
        let len = w.bufs[p.buf].data.len() as i64;
        let cells = p.to.cells() as i64;
        if p.off < 0 || p.off + cells > len {
            return Err(Stop::Out(Outcome::OutOfBounds {
                thread,
                block,
                array: w.bufs[p.buf].name.clone(),
                index: p.off,
                line,
            }));
        }
        let off = p.off as usize;
        let who = Who {
            block: w.block_lin,
            tid,
            phase: w.phase,
            clock: &w.clocks[tid as usize],
        };
        if let Some(r) = memory::check(&mut w.bufs[p.buf], off, &who, kind, line) {
            let a = Access {
                thread: w.thread_coords(r.tid),
                block: w.block_coords(r.block),
                line: r.line as usize,
                write: r.kind != Kind::Read,
                atomic: r.kind == Kind::Atomic,
            };
            let b = Access {
                thread,
                block,
                line,
                write: kind != Kind::Read,
                atomic: kind == Kind::Atomic,
            };
            return Err(Stop::Out(Outcome::Race(Race {
                array: w.bufs[p.buf].name.clone(),
                index: p.off,
                a,
                b,
            })));
        }
        Ok(off)
    }

    fn load_mem(&mut self, p: &Ptr, line: usize, kind: Kind) -> R<Value> {
        if let Ty::Array(elem, _) = &p.to {
            return Ok(Value::Ptr(Ptr {
                buf: p.buf,
                off: p.off,
                to: (**elem).clone(),
            }));
        }
        if !matches!(p.to, Ty::S(_) | Ty::Ptr(_)) {
            return unsup("a load of a void value");
        }
        let off = self.who_access(p, kind, line)?;
        let v = self.w().bufs[p.buf].data[off].clone();
        Ok(v)
    }

    fn store_mem(&mut self, p: &Ptr, v: Value, line: usize, kind: Kind) -> R<()> {
        let v = v.convert(&p.to)?;
        let off = self.who_access(p, kind, line)?;
        self.w().bufs[p.buf].data[off] = v;
        Ok(())
    }

    fn load(&mut self, place: &Place, line: usize) -> R<Value> {
        match place {
            Place::Slot(s) => Ok(self.frame().vals[*s].clone()),
            Place::Mem(p) => self.load_mem(p, line, Kind::Read),
        }
    }

    fn store(&mut self, place: &Place, v: Value, line: usize) -> R<()> {
        match place {
            Place::Slot(s) => {
                let f = self.frame();
                let ty = f.tys[*s].clone();
                f.vals[*s] = v.convert(&ty)?;
                Ok(())
            }
            Place::Mem(p) => self.store_mem(p, v, line, Kind::Write),
        }
    }

    fn var_ptr(&mut self, i: usize) -> Ptr {
        let def = &self.prog.vars[i];
        let buf = self.w().var_bufs[i];
        Ptr {
            buf,
            off: 0,
            to: def.ty.clone(),
        }
    }

    fn place(&mut self, e: &Ex) -> R<Place> {
        match &e.e {
            E::Local(s) => Ok(Place::Slot(*s)),
            E::Var(i) => Ok(Place::Mem(self.var_ptr(*i))),
            E::Index(a, i) => {
                let base = self.eval(a)?;
                let idx = self.eval(i)?;
                Ok(Place::Mem(self.offset(base, &idx, 1, e.line)?))
            }
            E::Deref(a) => match self.eval(a)? {
                Value::Ptr(p) => Ok(Place::Mem(p)),
                Value::Null => unsup("a null pointer dereferenced"),
                _ => unsup("a number dereferenced"),
            },
            _ => unsup("an expression that is not assignable"),
        }
    }

    /// `base + sign*idx` for a pointer `base`.
    fn offset(&mut self, base: Value, idx: &Value, sign: i64, line: usize) -> R<Ptr> {
        let Value::Ptr(p) = base else {
            let _ = line;
            return unsup("indexing something that is not an array or pointer");
        };
        if matches!(idx, Value::Float(..) | Value::Ptr(_) | Value::Null) {
            return unsup("a non-integer index");
        }
        let i = idx.as_i128()? as i64;
        let cells = p.to.cells().max(1) as i64;
        Ok(Ptr {
            buf: p.buf,
            off: p.off.wrapping_add(sign.wrapping_mul(i).wrapping_mul(cells)),
            to: p.to,
        })
    }

    pub fn eval(&mut self, e: &Ex) -> R<Value> {
        match &e.e {
            E::Lit(v) => Ok(v.clone()),
            E::Local(s) => Ok(self.frame().vals[*s].clone()),
            E::Var(i) => {
                let p = self.var_ptr(*i);
                if self.prog.vars[*i].space == Space::Global && !matches!(p.to, Ty::Array(..)) {
                    // A scalar `__device__` variable: memory like any other.
                }
                self.load_mem(&p, e.line, Kind::Read)
            }
            E::Dim(d, k) => {
                let k = *k as usize;
                let v = match d {
                    Dim3::ThreadIdx => self.thread[k],
                    Dim3::BlockIdx => self.block[k],
                    Dim3::BlockDim => self.block_dim[k],
                    Dim3::GridDim => self.grid_dim[k],
                };
                Ok(Value::uint(v.into()))
            }
            E::Unary(op, a) => {
                let v = self.eval(a)?;
                Ok(unary(*op, v)?)
            }
            E::Bin(BinOp::LAnd, a, b) => Ok(Value::of_bool(self.cond(a)? && self.cond(b)?)),
            E::Bin(BinOp::LOr, a, b) => Ok(Value::of_bool(self.cond(a)? || self.cond(b)?)),
            E::Bin(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                self.binary(*op, x, y, e.line)
            }
            E::Assign(op, l, r) => {
                let place = self.place(l)?;
                let rhs = self.eval(r)?;
                let v = match op {
                    None => rhs,
                    Some(op) => {
                        let old = self.load(&place, e.line)?;
                        self.binary(*op, old, rhs, e.line)?
                    }
                };
                self.store(&place, v, e.line)?;
                self.load_after_store(&place)
            }
            E::IncDec { pre, inc, e: a } => {
                let place = self.place(a)?;
                let old = self.load(&place, e.line)?;
                let op = if *inc { BinOp::Add } else { BinOp::Sub };
                let new = self.binary(op, old.clone(), Value::int(1), e.line)?;
                self.store(&place, new, e.line)?;
                if *pre {
                    self.load_after_store(&place)
                } else {
                    Ok(old)
                }
            }
            E::Cond(c, a, b) => {
                if self.cond(c)? {
                    self.eval(a)
                } else {
                    self.eval(b)
                }
            }
            E::Comma(a, b) => {
                self.eval(a)?;
                self.eval(b)
            }
            E::Index(..) | E::Deref(_) => {
                let p = self.place(e)?;
                self.load(&p, e.line)
            }
            E::AddrOf(a) => match self.place(a)? {
                Place::Mem(p) => Ok(Value::Ptr(p)),
                Place::Slot(_) => unsup("the address of a local variable"),
            },
            E::Cast(t, a) => Ok(self.eval(a)?.convert(t)?),
            E::Call(f, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a)?);
                }
                let f = &self.prog.funcs[*f];
                self.ctx.push(e as *const Ex as u64);
                let r = self.call(f, vals);
                self.ctx.pop();
                r
            }
            E::Builtin(name, args) => self.builtin(name, args, e),
            E::Unsupported(what) => unsup(what.clone()),
        }
    }

    /// The value an assignment expression has: the stored value, read back
    /// without recording a second access.
    fn load_after_store(&mut self, place: &Place) -> R<Value> {
        match place {
            Place::Slot(s) => Ok(self.frame().vals[*s].clone()),
            Place::Mem(p) => {
                if p.off < 0 {
                    return unsup("an access out of bounds");
                }
                Ok(self.w().bufs[p.buf].data[p.off as usize].clone())
            }
        }
    }

    fn binary(&mut self, op: BinOp, x: Value, y: Value, line: usize) -> R<Value> {
        match (&x, &y) {
            (Value::Ptr(_), Value::Int(..)) if matches!(op, BinOp::Add | BinOp::Sub) => {
                let sign = if op == BinOp::Add { 1 } else { -1 };
                Ok(Value::Ptr(self.offset(x, &y, sign, line)?))
            }
            (Value::Int(..), Value::Ptr(_)) if op == BinOp::Add => {
                Ok(Value::Ptr(self.offset(y, &x, 1, line)?))
            }
            (Value::Ptr(a), Value::Ptr(b)) => {
                if a.buf != b.buf {
                    return match op {
                        BinOp::Eq => Ok(Value::of_bool(false)),
                        BinOp::Ne => Ok(Value::of_bool(true)),
                        _ => unsup("pointers into different buffers compared"),
                    };
                }
                let (i, j) = (
                    Value::Int(a.off.into(), Scal::I64),
                    Value::Int(b.off.into(), Scal::I64),
                );
                if op == BinOp::Sub {
                    let cells = a.to.cells().max(1) as i128;
                    return Ok(Value::Int((a.off - b.off) as i128 / cells, Scal::I64));
                }
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
            (Value::Ptr(_) | Value::Null, _) | (_, Value::Ptr(_) | Value::Null) => {
                if let (Value::Ptr(_), Value::Int(0, _)) | (Value::Int(0, _), Value::Ptr(_)) =
                    (&x, &y)
                {
                    if matches!(op, BinOp::Eq | BinOp::Ne) {
                        return Ok(Value::of_bool(op == BinOp::Ne));
                    }
                }
                unsup("this pointer arithmetic")
            }
            _ => Ok(arith(op, &x, &y)?),
        }
    }

    fn args(&mut self, args: &[Ex]) -> R<Vec<Value>> {
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            out.push(self.eval(a)?);
        }
        Ok(out)
    }

    fn builtin(&mut self, name: &str, args: &[Ex], e: &Ex) -> R<Value> {
        let line = e.line;
        let n = args.len();
        let site = e as *const Ex as usize;
        match (name, n) {
            ("__syncthreads", 0) => {
                let key = (site, self.ctx.clone());
                self.sync(Yield::Barrier {
                    key,
                    line,
                    pred: None,
                })?;
                Ok(Value::Void)
            }
            ("__syncthreads_count" | "__syncthreads_and" | "__syncthreads_or", 1) => {
                let p = self.cond(&args[0])?;
                let key = (site, self.ctx.clone());
                let counted = self.sync(Yield::Barrier {
                    key,
                    line,
                    pred: Some(p),
                })?;
                let c = counted.as_i128()?;
                let total = i128::from(self.block_dim[0] * self.block_dim[1] * self.block_dim[2]);
                Ok(match name {
                    "__syncthreads_count" => Value::int(c),
                    "__syncthreads_and" => Value::int(i128::from(c == total)),
                    _ => Value::int(i128::from(c > 0)),
                })
            }
            ("__syncwarp", 0 | 1) => {
                let mask = if n == 1 {
                    self.eval(&args[0])?.as_i128()? as u32
                } else {
                    u32::MAX
                };
                self.sync(Yield::Warp {
                    op: WarpOp::Sync,
                    mask,
                    line,
                })?;
                Ok(Value::Void)
            }
            ("__shfl_sync" | "__shfl_up_sync" | "__shfl_down_sync" | "__shfl_xor_sync", 3 | 4) => {
                let v = self.args(args)?;
                let mask = v[0].as_i128()? as u32;
                let width = if n == 4 { v[3].as_i128()? as i64 } else { 32 };
                if !(1..=32).contains(&width) || width & (width - 1) != 0 {
                    return unsup("a shuffle width that is not a power of two up to 32");
                }
                let kind = match name {
                    "__shfl_sync" => ShflKind::Idx,
                    "__shfl_up_sync" => ShflKind::Up,
                    "__shfl_down_sync" => ShflKind::Down,
                    _ => ShflKind::Xor,
                };
                if matches!(v[1], Value::Ptr(_) | Value::Null | Value::Void) {
                    return unsup("a shuffle of a pointer");
                }
                self.sync(Yield::Warp {
                    op: WarpOp::Shfl {
                        kind,
                        value: v[1].clone(),
                        lane: v[2].as_i128()? as i64,
                        width,
                    },
                    mask,
                    line,
                })
            }
            ("__ballot_sync" | "__all_sync" | "__any_sync", 2) => {
                let mask = self.eval(&args[0])?.as_i128()? as u32;
                let pred = self.cond(&args[1])?;
                let kind = match name {
                    "__ballot_sync" => VoteKind::Ballot,
                    "__all_sync" => VoteKind::All,
                    _ => VoteKind::Any,
                };
                self.sync(Yield::Warp {
                    op: WarpOp::Vote { kind, pred },
                    mask,
                    line,
                })
            }
            ("__requires" | "__assume", 1) => {
                if self.cond(&args[0])? {
                    Ok(Value::Void)
                } else {
                    Err(Stop::Out(Outcome::Vacuous))
                }
            }
            ("assert", 1) => {
                if self.cond(&args[0])? {
                    Ok(Value::Void)
                } else {
                    Err(Stop::Out(Outcome::AssertionFailed {
                        thread: self.thread,
                        block: self.block,
                        line,
                    }))
                }
            }
            ("printf", _) => Ok(Value::int(0)),
            ("__threadfence" | "__threadfence_block" | "__threadfence_system", 0) => {
                unsup("fence-based ordering (__threadfence)")
            }
            ("__ldg", 1) => match self.eval(&args[0])? {
                Value::Ptr(p) => self.load_mem(&p, line, Kind::Read),
                _ => unsup("__ldg of a non-pointer"),
            },
            _ if name.starts_with("atomic") => self.atomic(name, args, line),
            _ => {
                let v = self.args(args)?;
                math(name, &v)
            }
        }
    }

    fn atomic(&mut self, name: &str, args: &[Ex], line: usize) -> R<Value> {
        let base = name.trim_end_matches("_block").trim_end_matches("_system");
        let v = self.args(args)?;
        let Some(Value::Ptr(p)) = v.first().cloned() else {
            return unsup(format!("`{name}` on something that is not a pointer"));
        };
        let Ty::S(s) = p.to else {
            return unsup(format!("`{name}` on a non-scalar"));
        };
        let old = self.load_mem(&p, line, Kind::Atomic)?;
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
            _ => return unsup(format!("the atomic `{name}`")),
        };
        // One access for the read-modify-write (already recorded by the
        // load): the store goes straight to memory.
        let new = new.into_scal(s)?;
        self.w().bufs[p.buf].data[p.off as usize] = new;
        Ok(old)
    }
}

fn flatten<'a>(items: &'a [Init], out: &mut Vec<&'a Ex>) {
    for i in items {
        match i {
            Init::Expr(e) => out.push(e),
            Init::List(l) => flatten(l, out),
            Init::None => {}
        }
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
