//! Values read back from `__shared__` memory after a barrier: the value the
//! thread that wrote the cell stored, where the model can name that thread.
//!
//! Lowering gives every read of memory a fresh unknown. A tile that each
//! thread fills before a barrier and reads a neighbour's cell of after it
//! (`s[t + 1] = key[i]; if (t == 0) s[0] = key[i - 1]; sync; if (key[i] !=
//! s[t]) end[s[t]] = i;`) then holds anything, and a scatter by the value
//! read back looks racy although, with sorted keys, each thread reads its
//! neighbour's key and the targets differ. Here, once a kernel is lowered,
//! such a read becomes an expression of what its writer stored.
//!
//! Why the value is exact (quantifier-free; no claim rests on more):
//! - Every write to the array lies in one barrier interval: none in a
//!   loop, no barrier of any level between two of them, and a barrier that
//!   every thread passes (`guard` true, at the kernel's top level) after
//!   the last one. A read after that barrier sees the last write to its
//!   cell in that interval, or no write at all, and nothing after it.
//! - The race check covers that interval on its own: if two threads of the
//!   block may write one cell there, that race is reported, so no verdict
//!   of "verified" rests on a value forwarded from it. Without such a race
//!   one thread at most wrote the cell, and the last of its writes in
//!   program order stored the value (no loop: tree order is program order,
//!   and the two sides of an `if` exclude each other). Forwarded values
//!   feed only reads after the interval, so whether a race exists is
//!   decided by induction over intervals: the first racy one in any run
//!   sees only exact forwarded values.
//! - A write statement whose cell is `a * threadIdx.x + r` (`a != 0`, `r`
//!   one value for the whole block), or `r` under a guard that holds only
//!   for `threadIdx.x == k`, is made to cell `c` by one thread at most:
//!   `w = (c - r) / a` where `a` divides `c - r` (or `k` where `c == r`),
//!   in a block that is one-dimensional (`blockDim.y == blockDim.z == 1`
//!   is part of the condition), and only when `0 <= w < blockDim.x` and the
//!   statement's guard holds for `w`.
//! - Its value is the statement's value expression in `w`'s terms: the
//!   built-in values, parameters and block-wide values are the reader's;
//!   each read `w` made of an array the kernel never writes is a new
//!   unknown (`Kernel::forwarded_reads`, whose index and guard are `w`'s),
//!   which the stated input orders constrain like any read (`__sorted`).
//!   Anything else `w` holds (another per-thread unknown) is not known, so
//!   where that statement applies the value stays the read's own unknown;
//!   so does a value outside the element type's range (a store converts
//!   it), and a statement whose guard cannot be stated for `w` makes the
//!   value unknown wherever `w` is a thread of the block.
//!
//! Each forwarded value keeps the read's own unknown as its last case, so
//! the model still allows every value the memory may hold where no case
//! names the writer: it only gets more exact, never different.

use super::*;

/// How deep a writer's value is followed through the reads its indices
/// and guards make (`keys[perm[i]]`).
const MAX_DEPTH: usize = 4;

/// Rewrites every read of a `__shared__` array that a preceding barrier
/// interval alone filled into the value its writer stored (see the module).
pub(super) fn forward_shared_reads(kernel: &mut Kernel) {
    let written: Vec<ArrayId> = kernel
        .accesses()
        .iter()
        .filter(|a| a.kind.writes())
        .map(|a| a.array)
        .collect();
    let mut replaced: HashMap<Var, Expr> = HashMap::new();
    let mut forwarded: Vec<ForwardedRead> = Vec::new();
    for array in 0..kernel.arrays.len() {
        let Some(tile) = Tile::of(kernel, array) else {
            continue;
        };
        let mut forwarding = Forwarding {
            kernel,
            written: &written,
            forwarded: Vec::new(),
        };
        for reader in &tile.readers {
            if let Some(value) = forwarding.value_read(&tile, reader) {
                replaced.insert(reader.value.clone(), value);
            }
        }
        forwarded.extend(forwarding.forwarded);
    }
    if replaced.is_empty() {
        return;
    }
    substitute(kernel, &replaced);
    kernel.forwarded_reads.extend(forwarded);
}

/// A `__shared__` array whose writes all lie in one barrier interval
/// before a barrier every thread passes, and the reads after it.
struct Tile {
    writes: Vec<Write>,
    readers: Vec<Reader>,
}

/// A write statement of the tile and the one thread that may write a
/// given cell by it.
struct Write {
    access: Access,
    /// `a` and `r` of a cell `a * threadIdx.x + r`; `a == 0`: the cell is
    /// `r`, written only by `threadIdx.x == pinned`.
    coefficient: i64,
    rest: Expr,
    pinned: Option<i64>,
}

/// A read after the barrier: its cell and the unknown it returns.
struct Reader {
    index: Expr,
    value: Var,
}

impl Tile {
    fn of(kernel: &Kernel, array: ArrayId) -> Option<Tile> {
        let a = &kernel.arrays[array];
        if a.space != MemorySpace::Shared || a.byte_addressed {
            return None;
        }
        let mut first = None;
        let mut last = None;
        let mut ok = true;
        for (pos, stmt) in kernel.body.iter().enumerate() {
            let mut in_loop = false;
            visit(stmt, false, &mut |s, looped| {
                if let Stmt::Access(acc) = s {
                    if acc.array != array {
                        return;
                    }
                    if acc.width != 1 {
                        ok = false;
                    }
                    if acc.kind.writes() {
                        in_loop |= looped;
                        ok &= acc.kind == AccessKind::Write;
                        first.get_or_insert(pos);
                        last = Some(pos);
                    }
                }
            });
            ok &= !in_loop;
        }
        let (first, last) = (first?, last?);
        if !ok {
            return None;
        }
        // The first barrier after the last write, at the top level, that
        // every thread passes; no barrier of any level among the writes.
        let barrier = (last + 1..kernel.body.len()).find(|&p| {
            matches!(&kernel.body[p], Stmt::Barrier(b) if b.guard.is_true()
                && b.kind != BarrierKind::Warp)
        })?;
        let mut barriers_between = false;
        for stmt in &kernel.body[first..barrier] {
            visit(stmt, false, &mut |s, _| {
                barriers_between |= matches!(s, Stmt::Barrier(_));
            });
        }
        if barriers_between {
            return None;
        }
        let mut writes = Vec::new();
        for stmt in &kernel.body[first..=last] {
            let mut bad = false;
            visit(stmt, false, &mut |s, _| {
                if let Stmt::Access(acc) = s {
                    if acc.array == array && acc.kind.writes() {
                        match Write::of(acc) {
                            Some(w) => writes.push(w),
                            None => bad = true,
                        }
                    }
                }
            });
            if bad {
                return None;
            }
        }
        let mut readers = Vec::new();
        for stmt in &kernel.body[barrier + 1..] {
            visit(stmt, false, &mut |s, _| {
                if let Stmt::Access(acc) = s {
                    if acc.array == array && acc.kind == AccessKind::Read {
                        let value = kernel.read_values.iter().find(|(_, id)| *id == acc.id);
                        if let Some((value, _)) = value {
                            readers.push(Reader {
                                index: acc.index.clone(),
                                value: value.clone(),
                            });
                        }
                    }
                }
            });
        }
        Some(Tile { writes, readers })
    }
}

impl Write {
    fn of(access: &Access) -> Option<Write> {
        let (coefficient, rest) = linear_in_thread_x(&access.index)?;
        if rest.scope() == Scope::Thread {
            return None;
        }
        let pinned = if coefficient == 0 {
            Some(pinned_thread_x(&access.guard)?)
        } else {
            None
        };
        Some(Write {
            access: access.clone(),
            coefficient,
            rest,
            pinned,
        })
    }

    /// The thread that may write cell `cell` by this statement, and when
    /// it does: `cell` is its cell at all (`a` divides, or the constant
    /// cell).
    fn writer_of(&self, cell: &Expr) -> (Expr, Expr) {
        let offset = Expr::bin(BinOp::Sub, cell.clone(), self.rest.clone());
        match (self.coefficient, self.pinned) {
            (0, Some(k)) => (Expr::Const(k), Expr::eq(cell.clone(), self.rest.clone())),
            (1, _) => (offset, Expr::tru()),
            (-1, _) => (Expr::un(UnOp::Neg, offset), Expr::tru()),
            (a, _) => (
                Expr::bin(BinOp::Div, offset.clone(), Expr::Const(a)),
                Expr::eq(
                    Expr::bin(BinOp::Rem, offset, Expr::Const(a)),
                    Expr::Const(0),
                ),
            ),
        }
    }
}

/// Builds the forwarded value of each reader of a tile.
struct Forwarding<'k> {
    kernel: &'k Kernel,
    /// Arrays the kernel writes (their reads are no function of the index).
    written: &'k [ArrayId],
    forwarded: Vec<ForwardedRead>,
}

/// The writer a statement's value is restated for, in the reader's terms.
struct Writer<'r> {
    thread_x: Expr,
    /// The writer is a thread of the block and its cell is the one read.
    exists: Expr,
    reader_base: &'r str,
    tag: &'r str,
    /// The scope of the reader's own unknown.
    scope: Scope,
    statement: usize,
}

impl Forwarding<'_> {
    fn value_read(&mut self, tile: &Tile, reader: &Reader) -> Option<Expr> {
        // Only a read whose cell the model names without reading memory
        // (`s[t - 1]`, `s[(t + 1) % 64]`, `s[t + k]` with a loop counter
        // `k`) is forwarded. A cell chosen from data (`s[e * 32 + t]`, `e`
        // read from a table) is left alone: there the writer is usually the
        // reader itself, and the own-slot argument (`verify::own_slots`)
        // decides it from the reader's own values, which a value restated
        // in the writer's fresh terms would hide.
        if reader
            .index
            .mentions(&mut |v| matches!(v.kind, VarKind::Unknown { .. }))
        {
            return None;
        }
        let (reader_base, tag) = match symbols::split_iteration_tag(&reader.value.name) {
            Some((base, _)) => (base, &reader.value.name[base.len()..]),
            None => (&*reader.value.name, ""),
        };
        let unknown = Expr::Var(reader.value.clone());
        let (range, scope) = match reader.value.kind {
            VarKind::Unknown { lo, hi, scope } => ((lo, hi), scope),
            _ => return None,
        };
        let mut value = unknown.clone();
        let mut known = false;
        // Each later statement wraps the earlier ones: the outermost case
        // is the last write in program order.
        for (statement, write) in tile.writes.iter().enumerate() {
            let (thread_x, covers) = write.writer_of(&reader.index);
            let exists = Expr::all([covers, self.real_thread(&thread_x)]);
            let writer = Writer {
                thread_x,
                exists: exists.clone(),
                reader_base,
                tag,
                scope,
                statement,
            };
            let Some(guard) = self.restate(&write.access.guard, &writer, 0) else {
                value = Expr::ite(exists, unknown.clone(), value);
                continue;
            };
            let applies = Expr::and(exists, guard);
            let stored = write
                .access
                .value
                .as_ref()
                .and_then(|v| self.restate(v, &writer, 0));
            value = match stored {
                Some(stored) => {
                    known = true;
                    // A value outside the element type's range was
                    // converted by the store: not restated.
                    let fits = if range == (i64::MIN, i64::MAX) {
                        Expr::tru()
                    } else {
                        Expr::and(
                            Expr::bin(BinOp::Ge, stored.clone(), Expr::Const(range.0)),
                            Expr::bin(BinOp::Le, stored.clone(), Expr::Const(range.1)),
                        )
                    };
                    Expr::ite(applies, Expr::ite(fits, stored, unknown.clone()), value)
                }
                None => Expr::ite(applies, unknown.clone(), value),
            };
        }
        known.then_some(value)
    }

    /// `0 <= x < blockDim.x` in a one-dimensional block.
    fn real_thread(&self, x: &Expr) -> Expr {
        let dim = |d: u8| {
            Expr::Var(Var::new(
                format!("blockDim.{}", symbols::DIMS[d as usize]),
                VarKind::BlockDim(d),
            ))
        };
        Expr::all([
            Expr::bin(BinOp::Ge, x.clone(), Expr::Const(0)),
            Expr::bin(BinOp::Lt, x.clone(), dim(0)),
            Expr::eq(dim(1), Expr::Const(1)),
            Expr::eq(dim(2), Expr::Const(1)),
        ])
    }

    /// `e`, an expression of the writer's values, in the reader's terms;
    /// `None` where it holds a value of the writer the model cannot name.
    fn restate(&mut self, e: &Expr, writer: &Writer, depth: usize) -> Option<Expr> {
        let mut failed = false;
        let out = e.subst(&mut |v: &Var| match v.kind {
            VarKind::ThreadIdx(0) => Some(writer.thread_x.clone()),
            // A one-dimensional block (part of `exists`): zero.
            VarKind::ThreadIdx(_) => Some(Expr::Const(0)),
            VarKind::BlockIdx(_)
            | VarKind::BlockDim(_)
            | VarKind::GridDim(_)
            | VarKind::Param { .. } => None,
            VarKind::Unknown { scope, .. } if scope != Scope::Thread => None,
            VarKind::Unknown { .. } if depth < MAX_DEPTH => {
                let read = self.forwarded_read(v, writer, depth);
                failed |= read.is_none();
                read
            }
            _ => {
                failed = true;
                None
            }
        });
        (!failed).then_some(out)
    }

    /// The writer's read that returned `v`, as a new unknown of the reader,
    /// when it is a read of an array the kernel never writes (one value
    /// per cell), outside loops.
    fn forwarded_read(&mut self, v: &Var, writer: &Writer, depth: usize) -> Option<Expr> {
        let (_, id) = self.kernel.read_values.iter().find(|(r, _)| r == v)?;
        let access = self.kernel.accesses().into_iter().find(|a| a.id == *id)?;
        let array = &self.kernel.arrays[access.array];
        if array.space == MemorySpace::Shared
            || array.byte_addressed
            || access.width != 1
            || !access.loops.is_empty()
            || self.written.contains(&access.array)
        {
            return None;
        }
        let name = symbols::forwarded(&v.name, writer.reader_base, writer.statement, writer.tag);
        // One value wherever the reader's own is (its cell names the
        // writer): a cell every thread of the block reads is one writer.
        let kind = match v.kind {
            VarKind::Unknown { lo, hi, .. } => VarKind::Unknown {
                scope: writer.scope,
                lo,
                hi,
            },
            other => other,
        };
        let value = Var::new(name, kind);
        if !self.forwarded.iter().any(|f| f.value == value) {
            let index = self.restate(&access.index, writer, depth + 1)?;
            let guard = self.restate(&access.guard, writer, depth + 1)?;
            self.forwarded.push(ForwardedRead {
                value: value.clone(),
                array: access.array,
                index,
                guard: Expr::and(writer.exists.clone(), guard),
            });
        }
        Some(Expr::Var(value))
    }
}

/// Calls `f` on `stmt` and every statement inside it, with whether it lies
/// in a loop (`looped` for `stmt` itself).
fn visit(stmt: &Stmt, looped: bool, f: &mut impl FnMut(&Stmt, bool)) {
    f(stmt, looped);
    match stmt {
        Stmt::If(a, b) => {
            for s in a.iter().chain(b) {
                visit(s, looped, f);
            }
        }
        Stmt::Loop(l) => {
            for s in &l.body {
                visit(s, true, f);
            }
        }
        _ => {}
    }
}

/// `e` as `a * threadIdx.x + r` with `r` free of every thread index.
fn linear_in_thread_x(e: &Expr) -> Option<(i64, Expr)> {
    if !e.mentions(&mut |v| matches!(v.kind, VarKind::ThreadIdx(_))) {
        return Some((0, e.clone()));
    }
    match e {
        Expr::Var(v) if v.kind == VarKind::ThreadIdx(0) => Some((1, Expr::Const(0))),
        Expr::Bin(op @ (BinOp::Add | BinOp::Sub), a, b) => {
            let (ca, ra) = linear_in_thread_x(a)?;
            let (cb, rb) = linear_in_thread_x(b)?;
            let c = if *op == BinOp::Add {
                ca.checked_add(cb)?
            } else {
                ca.checked_sub(cb)?
            };
            Some((c, Expr::bin(*op, ra, rb)))
        }
        Expr::Bin(BinOp::Mul, a, b) => {
            let (k, other) = match (a.as_const(), b.as_const()) {
                (Some(k), _) => (k, b),
                (_, Some(k)) => (k, a),
                _ => return None,
            };
            let (c, r) = linear_in_thread_x(other)?;
            Some((c.checked_mul(k)?, Expr::mul(Expr::Const(k), r)))
        }
        Expr::Un(UnOp::Neg, a) => {
            let (c, r) = linear_in_thread_x(a)?;
            Some((c.checked_neg()?, Expr::un(UnOp::Neg, r)))
        }
        _ => None,
    }
}

/// `k` where `guard` is a conjunction with `threadIdx.x == k` among its
/// terms: only thread `k` (along x) passes it.
fn pinned_thread_x(guard: &Expr) -> Option<i64> {
    match guard {
        Expr::Bin(BinOp::And, a, b) => pinned_thread_x(a).or_else(|| pinned_thread_x(b)),
        Expr::Bin(BinOp::Eq, a, b) => match (&**a, &**b) {
            (Expr::Var(v), Expr::Const(k)) | (Expr::Const(k), Expr::Var(v))
                if v.kind == VarKind::ThreadIdx(0) =>
            {
                Some(*k)
            }
            _ => None,
        },
        _ => None,
    }
}

/// Replaces each variable of `replaced` in every expression of the model
/// the checks read. A place left out keeps the read's own unknown, which
/// allows any value: less exact, never wrong.
fn substitute(kernel: &mut Kernel, replaced: &HashMap<Var, Expr>) {
    let apply = |e: &mut Expr| {
        if e.mentions(&mut |v| replaced.contains_key(v)) {
            *e = e.subst(&mut |v| replaced.get(v).cloned());
        }
    };
    fn stmts(list: &mut [Stmt], apply: &impl Fn(&mut Expr)) {
        for s in list {
            match s {
                Stmt::Access(a) => {
                    apply(&mut a.index);
                    apply(&mut a.guard);
                    if let Some(v) = a.value.as_mut() {
                        apply(v);
                    }
                }
                Stmt::Barrier(b) => {
                    apply(&mut b.guard);
                    for (_, c) in b.conditions.iter_mut() {
                        let mut e = (**c).clone();
                        apply(&mut e);
                        *c = Arc::new(e);
                    }
                }
                Stmt::If(a, b) => {
                    stmts(a, apply);
                    stmts(b, apply);
                }
                Stmt::Loop(l) => {
                    apply(&mut l.guard);
                    for (_, e) in l.display.iter_mut() {
                        apply(e);
                    }
                    stmts(&mut l.body, apply);
                }
                Stmt::LoopExit(e) => apply(e),
            }
        }
    }
    stmts(&mut kernel.body, &apply);
    for (_, g) in kernel.stmt_guards.iter_mut() {
        apply(g);
    }
    for a in kernel.assertions.iter_mut() {
        apply(&mut a.cond);
        apply(&mut a.guard);
    }
    for a in kernel.applications.iter_mut() {
        for e in a.args.iter_mut() {
            apply(e);
        }
    }
}
