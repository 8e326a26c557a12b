//! The syntax compiled to a flat list of stack-machine operations with
//! explicit jumps, so that a thread is a program counter, a value stack and
//! a call stack: it can stop at any synchronisation (inside an expression,
//! inside a device function) and resume there, without an OS thread each.

use std::collections::HashMap;

use crate::ast::{cell_types, Dim3, Ex, Func, Init, Program, St, UnOp, E, S};
use crate::value::{BinOp, Ty, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncKind {
    Barrier,
    /// `__syncthreads_count`/`_and`/`_or`: one predicate operand.
    BarrierCount,
    BarrierAnd,
    BarrierOr,
    /// Operands: mask (absent: the full warp).
    Warp {
        has_mask: bool,
    },
    /// Operands: mask, value, lane or delta, width (absent: 32).
    Shfl {
        kind: u8,
        has_width: bool,
    },
    /// Operands: mask, predicate.
    Vote {
        kind: u8,
    },
}

#[derive(Clone, Debug)]
pub enum Op {
    Lit(Value),
    Local(usize),
    /// Converts the top to the slot's type, stores it, leaves it on top.
    SetLocal(usize, Ty),
    /// Declares: pops the value into the slot (converted).
    InitLocal(usize, Ty),
    /// An array local: this thread's buffer for declaration `decl`
    /// (cleared if `zero`), its decayed pointer in the slot.
    Array {
        slot: usize,
        decl: usize,
        ty: Ty,
        /// The type of each cell (zero values).
        cells: Vec<Ty>,
        zero: bool,
        line: usize,
    },
    /// Pops a struct's address into the struct local in `slot` (a copy).
    InitCopy {
        slot: usize,
        cells: usize,
        line: usize,
    },
    /// Pops a struct's address, pushes its member's.
    Field(usize, Ty),
    /// Pops source and destination addresses, copies the cells, pushes the
    /// destination.
    Copy {
        cells: usize,
        line: usize,
    },
    /// Pops the members into a temporary struct of this thread, pushes its
    /// address.
    Make {
        ty: Ty,
        cells: Vec<Ty>,
        site: usize,
    },
    /// Pops a value into element `index` of the array in `slot`.
    ArrayInit {
        slot: usize,
        index: usize,
        leaf: Ty,
    },
    VarPtr(usize),
    Dim(Dim3, u8),
    Un(UnOp),
    /// A binary operator, with its line (where a signed overflow happens).
    Bin(BinOp, usize),
    ToBool,
    Cast(Ty),
    /// Pops index and pointer, pushes the element's pointer.
    Offset,
    /// Pops a value that must be a pointer (a dereference) and pushes it.
    Deref,
    Load(usize),
    /// Pops value and pointer, stores, pushes the value stored.
    Store(usize),
    /// Pops rhs and pointer; loads, combines, stores, pushes the result.
    Compound(BinOp, usize),
    /// Pops a pointer; increments or decrements the element; pushes the
    /// old (post) or new (pre) value.
    IncDecMem {
        inc: bool,
        pre: bool,
        line: usize,
    },
    Dup,
    Pop,
    Jmp(usize),
    JmpIfFalse(usize),
    JmpIfTrue(usize),
    /// Pops the scrutinee; jumps to the first matching label, else to the
    /// default, else to `end`.
    Switch {
        labels: Vec<(Value, usize)>,
        default: usize,
    },
    Call {
        func: usize,
        args: usize,
        site: usize,
        line: usize,
    },
    Ret,
    LoopEnter,
    LoopNext,
    LoopExit,
    /// A `goto`: leaves the loops it jumps out of (the loop context back to
    /// `depth` loops of this call), then jumps.
    Goto {
        to: usize,
        depth: usize,
    },
    Sync {
        kind: SyncKind,
        line: usize,
        site: usize,
    },
    /// Pops the arguments and the group; a method of a cooperative group.
    Group {
        method: String,
        args: usize,
        line: usize,
        site: usize,
    },
    Builtin {
        name: String,
        args: usize,
        line: usize,
    },
    Require,
    Assert(usize),
    Fail(String),
}

pub struct Code {
    pub ops: Vec<Op>,
    pub entry: Vec<usize>,
    /// Slots of each function's frame.
    pub slots: Vec<usize>,
}

impl Code {
    /// Which of the program's `vars` the code reachable from function
    /// `start` (through its calls) names: a run allocates only those (a
    /// unit of many kernels holds every kernel's `__shared__` arrays).
    pub fn vars_reached(&self, start: usize, vars: usize) -> Vec<bool> {
        let mut used = vec![false; vars];
        let mut seen = vec![false; self.entry.len()];
        let mut todo = vec![start];
        while let Some(f) = todo.pop() {
            if f >= seen.len() || std::mem::replace(&mut seen[f], true) {
                continue;
            }
            let end = self.entry.get(f + 1).copied().unwrap_or(self.ops.len());
            for op in &self.ops[self.entry[f]..end] {
                match op {
                    Op::VarPtr(i) if *i < vars => used[*i] = true,
                    Op::Call { func, .. } => todo.push(*func),
                    _ => {}
                }
            }
        }
        used
    }
}

struct Loop {
    breaks: Vec<usize>,
    continues: Vec<usize>,
    /// A switch takes `break` but not `continue`.
    is_switch: bool,
}

struct C<'p> {
    ops: Vec<Op>,
    loops: Vec<Loop>,
    /// This function's labels (address, loop depth) and gotos (operation,
    /// label, loop depth).
    labels: HashMap<String, (usize, usize)>,
    gotos: Vec<(usize, String, usize)>,
    slot_ty: HashMap<usize, Ty>,
    prog: &'p Program,
    next_site: usize,
}

pub fn compile(p: &Program) -> Code {
    let mut c = C {
        ops: Vec::new(),
        loops: Vec::new(),
        labels: HashMap::new(),
        gotos: Vec::new(),
        slot_ty: HashMap::new(),
        prog: p,
        next_site: 0,
    };
    let mut entry = Vec::new();
    let mut slots = Vec::new();
    for f in &p.funcs {
        entry.push(c.ops.len());
        slots.push(f.slots.max(f.params.len()));
        c.function(f);
    }
    Code {
        ops: c.ops,
        entry,
        slots,
    }
}

fn collect_slot_types(s: &St, out: &mut HashMap<usize, Ty>) {
    match &s.s {
        S::Decl { slot, ty, .. } => {
            let t = match ty {
                Ty::Array(e, _) => Ty::Ptr(e.clone()),
                t => t.clone(),
            };
            out.insert(*slot, t);
        }
        S::If(_, a, b) => {
            collect_slot_types(a, out);
            if let Some(b) = b {
                collect_slot_types(b, out);
            }
        }
        S::While(_, b) | S::DoWhile(b, _) | S::Label(_, b) => collect_slot_types(b, out),
        S::For(i, _, _, b) => {
            for s in i {
                collect_slot_types(s, out);
            }
            collect_slot_types(b, out);
        }
        S::Block(l) | S::Switch(_, l, _) => {
            for s in l {
                collect_slot_types(s, out);
            }
        }
        _ => {}
    }
}

impl C<'_> {
    fn emit(&mut self, op: Op) -> usize {
        self.ops.push(op);
        self.ops.len() - 1
    }

    fn here(&self) -> usize {
        self.ops.len()
    }

    fn patch(&mut self, at: usize, to: usize) {
        match &mut self.ops[at] {
            Op::Jmp(t) | Op::JmpIfFalse(t) | Op::JmpIfTrue(t) => *t = to,
            _ => unreachable!("only jumps are patched"),
        }
    }

    /// Loops (not switches) around this point of the function.
    fn loop_depth(&self) -> usize {
        self.loops.iter().filter(|l| !l.is_switch).count()
    }

    fn site(&mut self) -> usize {
        self.next_site += 1;
        self.next_site
    }

    fn function(&mut self, f: &Func) {
        if let Some(why) = &f.unsupported {
            self.emit(Op::Fail(why.clone()));
            return;
        }
        let Some(body) = &f.body else {
            self.emit(Op::Fail(format!("`{}` has no body", f.name)));
            return;
        };
        self.slot_ty.clear();
        for (i, p) in f.params.iter().enumerate() {
            self.slot_ty.insert(i, p.ty.clone());
        }
        collect_slot_types(body, &mut self.slot_ty);
        self.labels.clear();
        self.gotos.clear();
        self.stmt(body);
        self.emit(Op::Lit(Value::Void));
        self.emit(Op::Ret);
        for (at, label, depth) in std::mem::take(&mut self.gotos) {
            self.ops[at] = match self.labels.get(&label) {
                Some(&(to, ldepth)) if ldepth <= depth => Op::Goto { to, depth: ldepth },
                Some(_) => Op::Fail("a goto into a loop".into()),
                None => Op::Fail(format!("goto `{label}` without its label")),
            };
        }
    }

    fn stmt(&mut self, st: &St) {
        match &st.s {
            S::Expr(e) => {
                self.expr(e);
                self.emit(Op::Pop);
            }
            S::Decl {
                slot,
                ty,
                init,
                decl,
            } => self.decl(*slot, ty, init, *decl, st.line),
            S::If(c, t, e) => {
                self.expr(c);
                let jf = self.emit(Op::JmpIfFalse(0));
                self.stmt(t);
                match e {
                    Some(e) => {
                        let j = self.emit(Op::Jmp(0));
                        let h = self.here();
                        self.patch(jf, h);
                        self.stmt(e);
                        let h = self.here();
                        self.patch(j, h);
                    }
                    None => {
                        let h = self.here();
                        self.patch(jf, h);
                    }
                }
            }
            S::While(c, body) => self.looping(&[], Some(c), None, body, false),
            S::DoWhile(body, c) => self.looping(&[], Some(c), None, body, true),
            S::For(init, c, u, body) => self.looping(init, c.as_ref(), u.as_ref(), body, false),
            S::Block(l) => {
                for s in l {
                    self.stmt(s);
                }
            }
            S::Switch(c, body, labels) => {
                self.expr(c);
                let sw = self.emit(Op::Switch {
                    labels: Vec::new(),
                    default: 0,
                });
                self.loops.push(Loop {
                    breaks: Vec::new(),
                    continues: Vec::new(),
                    is_switch: true,
                });
                let mut starts = vec![0; body.len() + 1];
                for (i, s) in body.iter().enumerate() {
                    starts[i] = self.here();
                    self.stmt(s);
                }
                let end = self.here();
                starts[body.len()] = end;
                let lp = self.loops.pop().expect("the switch's entry");
                for b in lp.breaks {
                    self.patch(b, end);
                }
                // `continue` inside a switch belongs to the enclosing loop.
                if let Some(outer) = self.loops.last_mut() {
                    outer.continues.extend(lp.continues);
                } else if !lp.continues.is_empty() {
                    for c in lp.continues {
                        self.ops[c] = Op::Fail("continue outside a loop".into());
                    }
                }
                let mut table = Vec::new();
                let mut default = end;
                for (l, at) in labels {
                    match l {
                        Some(v) => table.push((v.clone(), starts[*at])),
                        None => default = starts[*at],
                    }
                }
                self.ops[sw] = Op::Switch {
                    labels: table,
                    default,
                };
            }
            S::Break => {
                let j = self.emit(Op::Jmp(0));
                match self.loops.last_mut() {
                    Some(l) => l.breaks.push(j),
                    None => self.ops[j] = Op::Fail("break outside a loop".into()),
                }
            }
            S::Continue => {
                let j = self.emit(Op::Jmp(0));
                match self.loops.last_mut() {
                    Some(l) => l.continues.push(j),
                    None => self.ops[j] = Op::Fail("continue outside a loop".into()),
                }
            }
            S::Return(e) => {
                match e {
                    Some(e) => self.expr(e),
                    None => {
                        self.emit(Op::Lit(Value::Void));
                    }
                }
                self.emit(Op::Ret);
            }
            S::Empty => {}
            S::Label(name, inner) => {
                let depth = self.loop_depth();
                let here = self.here();
                self.labels.insert(name.clone(), (here, depth));
                self.stmt(inner);
            }
            S::Goto(name) => {
                let at = self.emit(Op::Fail("internal: an unpatched goto".into()));
                let depth = self.loop_depth();
                self.gotos.push((at, name.clone(), depth));
            }
            S::Unsupported(w) => {
                self.emit(Op::Fail(w.clone()));
            }
        }
    }

    fn looping(
        &mut self,
        init: &[St],
        cond: Option<&Ex>,
        update: Option<&Ex>,
        body: &St,
        do_while: bool,
    ) {
        for s in init {
            self.stmt(s);
        }
        self.emit(Op::LoopEnter);
        self.loops.push(Loop {
            breaks: Vec::new(),
            continues: Vec::new(),
            is_switch: false,
        });
        let top = self.here();
        let mut exit_jump = None;
        if !do_while {
            if let Some(c) = cond {
                self.expr(c);
                exit_jump = Some(self.emit(Op::JmpIfFalse(0)));
            }
        }
        self.stmt(body);
        let cont = self.here();
        if let Some(u) = update {
            self.expr(u);
            self.emit(Op::Pop);
        }
        self.emit(Op::LoopNext);
        if do_while {
            match cond {
                Some(c) => {
                    self.expr(c);
                    self.emit(Op::JmpIfTrue(top));
                }
                None => {
                    self.emit(Op::Jmp(top));
                }
            }
        } else {
            self.emit(Op::Jmp(top));
        }
        let exit = self.here();
        self.emit(Op::LoopExit);
        if let Some(j) = exit_jump {
            self.patch(j, exit);
        }
        let lp = self.loops.pop().expect("the loop's entry");
        debug_assert!(!lp.is_switch);
        for b in lp.breaks {
            self.patch(b, exit);
        }
        for c in lp.continues {
            self.patch(c, cont);
        }
    }

    fn decl(&mut self, slot: usize, ty: &Ty, init: &Init, decl: usize, line: usize) {
        match ty {
            Ty::Array(..) | Ty::Struct(..) => {
                let mut cells = Vec::new();
                cell_types(ty, &self.prog.structs, &mut cells);
                self.emit(Op::Array {
                    slot,
                    decl,
                    ty: ty.clone(),
                    cells: cells.clone(),
                    zero: matches!(init, Init::List(_)),
                    line,
                });
                match init {
                    Init::List(items) => {
                        let mut flat = Vec::new();
                        flatten(items, &mut flat);
                        if flat.len() > ty.cells() {
                            self.emit(Op::Fail("an initialiser longer than its array".into()));
                            return;
                        }
                        for (i, e) in flat.into_iter().enumerate() {
                            self.expr(e);
                            self.emit(Op::ArrayInit {
                                slot,
                                index: i,
                                leaf: cells[i].clone(),
                            });
                        }
                    }
                    Init::Expr(e) if matches!(ty, Ty::Struct(..)) => {
                        self.expr(e);
                        self.emit(Op::InitCopy {
                            slot,
                            cells: ty.cells(),
                            line,
                        });
                    }
                    Init::Expr(_) => {
                        self.emit(Op::Fail("an array initialised from an expression".into()));
                    }
                    Init::None => {}
                }
            }
            _ => {
                match init {
                    Init::None => {
                        self.emit(Op::Lit(Value::zero(ty)));
                    }
                    Init::Expr(e) => self.expr(e),
                    Init::List(items) => match items.as_slice() {
                        [] => {
                            self.emit(Op::Lit(Value::zero(ty)));
                        }
                        [Init::Expr(e)] => self.expr(e),
                        _ => {
                            self.emit(Op::Fail("a braced initialiser of a scalar".into()));
                        }
                    },
                }
                self.emit(Op::InitLocal(slot, ty.clone()));
            }
        }
    }

    /// Pushes a pointer to the place `e` names (not a local scalar).
    fn place(&mut self, e: &Ex) {
        match &e.e {
            E::Var(i) => {
                self.emit(Op::VarPtr(*i));
            }
            E::Index(a, i) => {
                self.expr(a);
                self.expr(i);
                self.emit(Op::Offset);
            }
            E::Deref(a) => {
                self.expr(a);
                self.emit(Op::Deref);
            }
            E::Local(s) if matches!(self.slot_type(*s), Ty::Struct(..)) => {
                // A struct local's slot holds its address.
                self.emit(Op::Local(*s));
            }
            E::Field(base, off, ty) => {
                self.expr(base);
                self.emit(Op::Field(*off, ty.clone()));
            }
            E::Local(_) => {
                self.emit(Op::Fail("the address of a local variable".into()));
            }
            E::Unsupported(w) => {
                self.emit(Op::Fail(w.clone()));
            }
            _ => {
                self.emit(Op::Fail("an expression that is not assignable".into()));
            }
        }
    }

    fn slot_type(&self, s: usize) -> Ty {
        self.slot_ty.get(&s).cloned().unwrap_or(Ty::Void)
    }

    fn expr(&mut self, e: &Ex) {
        let line = e.line;
        match &e.e {
            E::Lit(v) => {
                self.emit(Op::Lit(v.clone()));
            }
            E::Local(s) => {
                self.emit(Op::Local(*s));
            }
            E::Var(_) | E::Index(..) | E::Deref(_) | E::Field(..) => {
                self.place(e);
                self.emit(Op::Load(line));
            }
            E::CopyAssign(l, r, cells) => {
                self.place(l);
                self.expr(r);
                self.emit(Op::Copy {
                    cells: *cells,
                    line,
                });
            }
            E::MakeStruct(ty, args) => {
                for a in args {
                    self.expr(a);
                }
                let mut cells = Vec::new();
                cell_types(ty, &self.prog.structs, &mut cells);
                let site = self.site();
                self.emit(Op::Make {
                    ty: ty.clone(),
                    cells,
                    site,
                });
            }
            E::Dim(d, k) => {
                self.emit(Op::Dim(*d, *k));
            }
            E::Unary(op, a) => {
                self.expr(a);
                self.emit(Op::Un(*op));
            }
            E::Bin(BinOp::LAnd, a, b) | E::Bin(BinOp::LOr, a, b) => {
                let and = matches!(e.e, E::Bin(BinOp::LAnd, ..));
                self.expr(a);
                self.emit(Op::ToBool);
                self.emit(Op::Dup);
                let j = self.emit(if and {
                    Op::JmpIfFalse(0)
                } else {
                    Op::JmpIfTrue(0)
                });
                self.emit(Op::Pop);
                self.expr(b);
                self.emit(Op::ToBool);
                let h = self.here();
                self.patch(j, h);
            }
            E::Bin(op, a, b) => {
                self.expr(a);
                self.expr(b);
                self.emit(Op::Bin(*op, line));
            }
            E::Assign(op, l, r) => match (&l.e, op) {
                (E::Local(s), None) => {
                    self.expr(r);
                    let t = self.slot_type(*s);
                    self.emit(Op::SetLocal(*s, t));
                }
                (E::Local(s), Some(op)) => {
                    self.emit(Op::Local(*s));
                    self.expr(r);
                    self.emit(Op::Bin(*op, line));
                    let t = self.slot_type(*s);
                    self.emit(Op::SetLocal(*s, t));
                }
                (_, None) => {
                    self.place(l);
                    self.expr(r);
                    self.emit(Op::Store(line));
                }
                (_, Some(op)) => {
                    self.place(l);
                    self.expr(r);
                    self.emit(Op::Compound(*op, line));
                }
            },
            E::IncDec { pre, inc, e: a } => match &a.e {
                E::Local(s) => {
                    let t = self.slot_type(*s);
                    self.emit(Op::Local(*s));
                    if !*pre {
                        self.emit(Op::Dup);
                    }
                    self.emit(Op::Lit(Value::int(1)));
                    self.emit(Op::Bin(if *inc { BinOp::Add } else { BinOp::Sub }, line));
                    self.emit(Op::SetLocal(*s, t));
                    if !*pre {
                        self.emit(Op::Pop);
                    }
                }
                _ => {
                    self.place(a);
                    self.emit(Op::IncDecMem {
                        inc: *inc,
                        pre: *pre,
                        line,
                    });
                }
            },
            E::Cond(c, a, b) => {
                self.expr(c);
                let jf = self.emit(Op::JmpIfFalse(0));
                self.expr(a);
                let j = self.emit(Op::Jmp(0));
                let h = self.here();
                self.patch(jf, h);
                self.expr(b);
                let h = self.here();
                self.patch(j, h);
            }
            E::Comma(a, b) => {
                self.expr(a);
                self.emit(Op::Pop);
                self.expr(b);
            }
            E::AddrOf(a) => self.place(a),
            E::Cast(t, a) => {
                self.expr(a);
                self.emit(Op::Cast(t.clone()));
            }
            E::Call(f, args) => {
                for a in args {
                    self.expr(a);
                }
                let site = self.site();
                let _ = &self.prog.funcs[*f];
                self.emit(Op::Call {
                    func: *f,
                    args: args.len(),
                    site,
                    line,
                });
            }
            E::Builtin(name, args) => self.builtin(name, args, line),
            E::GroupCall(obj, method, args) => {
                self.expr(obj);
                for a in args {
                    self.expr(a);
                }
                let site = self.site();
                self.emit(Op::Group {
                    method: method.clone(),
                    args: args.len(),
                    line,
                    site,
                });
            }
            E::Unsupported(w) => {
                self.emit(Op::Fail(w.clone()));
            }
        }
    }

    fn builtin(&mut self, name: &str, args: &[Ex], line: usize) {
        let n = args.len();
        let sync = match (name, n) {
            ("__syncthreads", 0) => Some(SyncKind::Barrier),
            ("__syncthreads_count", 1) => Some(SyncKind::BarrierCount),
            ("__syncthreads_and", 1) => Some(SyncKind::BarrierAnd),
            ("__syncthreads_or", 1) => Some(SyncKind::BarrierOr),
            ("__syncwarp", 0 | 1) => Some(SyncKind::Warp { has_mask: n == 1 }),
            ("__shfl_sync", 3 | 4) => Some(SyncKind::Shfl {
                kind: 0,
                has_width: n == 4,
            }),
            ("__shfl_up_sync", 3 | 4) => Some(SyncKind::Shfl {
                kind: 1,
                has_width: n == 4,
            }),
            ("__shfl_down_sync", 3 | 4) => Some(SyncKind::Shfl {
                kind: 2,
                has_width: n == 4,
            }),
            ("__shfl_xor_sync", 3 | 4) => Some(SyncKind::Shfl {
                kind: 3,
                has_width: n == 4,
            }),
            ("__ballot_sync", 2) => Some(SyncKind::Vote { kind: 0 }),
            ("__all_sync", 2) => Some(SyncKind::Vote { kind: 1 }),
            ("__any_sync", 2) => Some(SyncKind::Vote { kind: 2 }),
            _ => None,
        };
        if let Some(kind) = sync {
            for a in args {
                self.expr(a);
            }
            let site = self.site();
            self.emit(Op::Sync { kind, line, site });
            // The barrier answers with how many threads' predicates held:
            // `_and` is whether all did, `_or` whether any did.
            match kind {
                SyncKind::BarrierAnd => {
                    self.emit(Op::Dim(Dim3::BlockDim, 0));
                    self.emit(Op::Dim(Dim3::BlockDim, 1));
                    self.emit(Op::Bin(BinOp::Mul, line));
                    self.emit(Op::Dim(Dim3::BlockDim, 2));
                    self.emit(Op::Bin(BinOp::Mul, line));
                    self.emit(Op::Bin(BinOp::Eq, line));
                    self.emit(Op::Cast(Ty::S(crate::value::Scal::I32)));
                }
                SyncKind::BarrierOr => {
                    self.emit(Op::Lit(Value::int(0)));
                    self.emit(Op::Bin(BinOp::Ne, line));
                    self.emit(Op::Cast(Ty::S(crate::value::Scal::I32)));
                }
                _ => {}
            }
            return;
        }
        match (name, n) {
            ("__requires" | "__assume", 1) => {
                self.expr(&args[0]);
                self.emit(Op::Require);
                self.emit(Op::Lit(Value::Void));
            }
            ("assert" | "__assert", 1) => {
                self.expr(&args[0]);
                self.emit(Op::Assert(line));
                self.emit(Op::Lit(Value::Void));
            }
            ("this_thread_block", 0) => {
                self.emit(Op::Lit(Value::Group(0)));
            }
            ("this_grid", 0) => {
                self.emit(Op::Fail("grid synchronisation (cg::this_grid)".into()));
            }
            ("printf", _) => {
                // No effect on memory, but its arguments are read (a read
                // may race); the format string is no value we model.
                for a in args {
                    if matches!(&a.e, E::Unsupported(w) if w == "a string") {
                        continue;
                    }
                    self.expr(a);
                    self.emit(Op::Pop);
                }
                self.emit(Op::Lit(Value::int(0)));
            }
            ("__threadfence" | "__threadfence_block" | "__threadfence_system", 0) => {
                self.emit(Op::Fail("fence-based ordering (__threadfence)".into()));
            }
            _ => {
                for a in args {
                    self.expr(a);
                }
                self.emit(Op::Builtin {
                    name: name.to_string(),
                    args: n,
                    line,
                });
            }
        }
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
