//! The proof of `syncscope equiv` (PUG-para's parameterised reasoning): one
//! symbolic location `L` of each output array, the thread that writes it in
//! each version (symbolic thread and block indices), its value term, a read
//! of a global input as an uninterpreted function of (array, index), a read
//! of shared memory resolved to the thread of the same block that wrote the
//! location in an earlier barrier interval. Operations on values are
//! uninterpreted functions, commutative (the paper's normalisation), never
//! associative. Queries, each of which must be unsat:
//! - the two values written at `L` differ;
//! - one version writes `L` and the other does not;
//! - a shared read a written value depends on has no writer.
//!
//! - two folds (`Kernel::folds`, values loops accumulate) the written
//!   values use differ in start value, iterations or step at a symbolic
//!   iteration `j` (a tiled loop over `t` with an inner `k < T` as one loop
//!   over `j = t * T + k`); proved folds are then one value.
//!
//! With `--assoc` ([`assoc`]), values that accumulate are sums over an
//! index set (folds, in-place tree reductions whose invariant is checked).
//!
//! Supported today: loops only as folds (reads, shared writes, barriers at
//! the top level of a loop's body), barriers at the top level, each written
//! array written by one statement. Anything else is `unknown`, with the
//! construct named.

mod assoc;
mod block_order;
mod block_unroll;
mod indices;
mod loop_writes;
mod register_mirror;

use crate::model::{Access, AccessKind, BinOp, Expr, Kernel, MemorySpace, Stmt, Var, VarKind};
use crate::options::Options;
use crate::verify::smt::{enc_bool, enc_int};
use std::collections::{BTreeMap, BTreeSet};

/// The text of the statement that writes `array` in `kernel` and its value,
/// each value read shown as the element read (`in[index]`); for an element
/// of shared memory, what was written there too.
pub(crate) fn write_text(kernel: &Kernel, array: &str) -> String {
    let accesses = kernel.accesses();
    let shown = |e: &Expr| -> Expr {
        e.subst(&mut |v: &Var| {
            let r = accesses.iter().find(|a| {
                a.kind == AccessKind::Read && matches!(&a.value, Some(Expr::Var(u)) if u == v)
            })?;
            let name = format!("{}[{}]", kernel.arrays[r.array].name, r.index);
            Some(Expr::Var(Var::new(name, v.kind)))
        })
    };
    let writes: Vec<_> = accesses
        .iter()
        .filter(|a| a.kind.writes() && kernel.arrays[a.array].name == array)
        .collect();
    let mut parts = Vec::new();
    for a in writes {
        let Some(value) = &a.value else {
            parts.push(format!("`{}` (value not modelled)", a.text));
            continue;
        };
        let mut text = format!("`{}` = {}", a.text, shown(value));
        // One level of shared memory: what its writer stored.
        let mut via = Vec::new();
        value.for_each_var(&mut |v| {
            let read = accesses.iter().find(|r| {
                r.kind == AccessKind::Read && matches!(&r.value, Some(Expr::Var(u)) if u == v)
            });
            if let Some(r) = read {
                if kernel.arrays[r.array].space != MemorySpace::Global {
                    for w in accesses
                        .iter()
                        .filter(|w| w.kind.writes() && w.array == r.array)
                    {
                        if let Some(wv) = &w.value {
                            via.push(format!(
                                "{}[{}] = {}",
                                kernel.arrays[w.array].name,
                                w.index,
                                shown(wv)
                            ));
                        }
                    }
                }
            }
        });
        if !via.is_empty() {
            text.push_str(&format!(", where {}", via.join(", ")));
        }
        parts.push(text);
    }
    parts.join("; ")
}

/// A kernel's accesses with their barrier interval (barriers at the top
/// level of the kernel or of a loop's body) and the loops around each
/// (`Loop::id`s, outermost first).
struct Shape<'k> {
    kernel: &'k Kernel,
    accesses: Vec<(usize, &'k Access)>,
    loops: Vec<Vec<usize>>,
}

fn shape(kernel: &Kernel, assoc: bool) -> Result<Shape<'_>, String> {
    struct Walk<'k> {
        kernel: &'k Kernel,
        assoc: bool,
        phase: usize,
        stack: Vec<usize>,
        out: Vec<(usize, &'k Access)>,
        loops: Vec<Vec<usize>>,
    }
    fn visit<'k>(stmts: &'k [Stmt], top: bool, w: &mut Walk<'k>) -> Result<(), String> {
        for s in stmts {
            match s {
                Stmt::Access(a) if a.kind == AccessKind::Atomic => {
                    return Err(format!("`{}` is an atomic update", a.text))
                }
                Stmt::Access(a) if a.width != 1 => {
                    return Err(format!(
                        "`{}` accesses a byte range (a view of another element type)",
                        a.text
                    ))
                }
                Stmt::Access(a) => {
                    w.out.push((w.phase, a));
                    w.loops.push(w.stack.clone());
                }
                // In a loop's body the guard holds the loop's condition;
                // `check` verified every barrier free of divergence.
                Stmt::Barrier(b) if top && (b.guard.is_true() || !w.stack.is_empty()) => {
                    w.phase += 1
                }
                Stmt::Barrier(_) => return Err("a barrier under a condition".into()),
                Stmt::If(x, y) => {
                    visit(x, false, w)?;
                    visit(y, false, w)?;
                }
                Stmt::Loop(l) => {
                    let name = loop_name(l);
                    let arrays = &w.kernel.arrays;
                    // A loop that writes global memory is a map: the set of
                    // its writes, each iteration's at its own cell (the
                    // proof checks the cells disjoint and the condition
                    // monotone, `loop_writes`).
                    // Shared memory read and written again across the
                    // iterations (a tree reduction's halving stride): the
                    // result is the inputs combined in another order.
                    let mut reads: Vec<(usize, Var)> = Vec::new();
                    let mut writes: Vec<(usize, Expr)> = Vec::new();
                    crate::model::walk(&l.body, &mut |x| {
                        if let Stmt::Access(a) = x {
                            match (&a.value, a.kind) {
                                (Some(Expr::Var(u)), AccessKind::Read) => {
                                    reads.push((a.array, u.clone()))
                                }
                                (Some(v), AccessKind::Write) => writes.push((a.array, v.clone())),
                                _ => {}
                            }
                        }
                    });
                    // A write whose value reads the array it writes.
                    let in_place: Vec<usize> = writes
                        .iter()
                        .filter(|(x, v)| {
                            v.mentions(&mut |u| reads.iter().any(|(y, r)| y == x && r == u))
                        })
                        .map(|(x, _)| *x)
                        .collect();
                    if let Some(x) = in_place.first().filter(|_| !w.assoc) {
                        return Err(format!(
                            "`{}` is read and written again on every iteration of the loop `{name}` (a reduction in place): proving it needs `+` treated as associative and commutative (`syncscope equiv --assoc`)",
                            arrays[*x].name
                        ));
                    }
                    w.stack.push(l.id);
                    visit(&l.body, top, w)?;
                    w.stack.pop();
                }
                Stmt::LoopExit(_) => return Err("a `break`".into()),
            }
        }
        Ok(())
    }
    let mut w = Walk {
        kernel,
        assoc,
        phase: 0,
        stack: Vec::new(),
        out: Vec::new(),
        loops: Vec::new(),
    };
    visit(&kernel.body, true, &mut w)?;
    Ok(Shape {
        kernel,
        accesses: w.out,
        loops: w.loops,
    })
}

impl<'k> Shape<'k> {
    fn name(&self, a: &Access) -> &'k str {
        &self.kernel.arrays[a.array].name
    }
    fn space(&self, a: &Access) -> MemorySpace {
        self.kernel.arrays[a.array].space
    }
    /// The one write of `array`, if any (more than one: unsupported).
    fn writer(&self, array: &str) -> Result<Option<(usize, &'k Access)>, String> {
        let w: Vec<_> = self
            .accesses
            .iter()
            .filter(|(_, a)| a.kind.writes() && self.name(a) == array)
            .collect();
        match w.len() {
            0 => Ok(None),
            1 => Ok(Some(*w[0])),
            _ => Err(format!("`{array}` is written by more than one statement")),
        }
    }
    /// The loops around an access (`Loop::id`s, outermost first).
    fn loops_of(&self, a: &Access) -> &[usize] {
        self.accesses
            .iter()
            .position(|(_, x)| std::ptr::eq(*x, a))
            .map(|i| self.loops[i].as_slice())
            .unwrap_or(&[])
    }
    fn read_of(&self, var: &Var) -> Option<(usize, &'k Access)> {
        self.accesses.iter().copied().find(|(_, a)| {
            a.kind == AccessKind::Read && matches!(&a.value, Some(Expr::Var(v)) if v == var)
        })
    }
}

/// The loop's variable for messages (`k`).
fn loop_name(l: &crate::model::Loop) -> String {
    l.display
        .first()
        .map(|(n, _)| n.clone())
        .unwrap_or_else(|| l.counter.name.to_string())
}

/// The warp shuffle whose result `v` stands for (`__shfl_down_sync`,
/// `tile.shfl_down`): a value of another lane's register, which the proof
/// does not follow (the model has it as a value of code it cannot see).
fn warp_exchange(v: &Var) -> Option<&str> {
    let name = v
        .name
        .strip_prefix(crate::symbols::UNSEEN_PREFIX)
        .unwrap_or(&v.name);
    let call = name.split('#').next().unwrap_or(name);
    let shuffle =
        call.starts_with("__shfl") || matches!(call, "shfl" | "shfl_up" | "shfl_down" | "shfl_xor");
    (is_read_value(v) && shuffle).then_some(call)
}

/// Why a value mentioning a warp shuffle is not modelled, if it mentions one.
fn exchanged(e: &Expr, whose: &str) -> Option<String> {
    let mut found = None;
    e.for_each_var(&mut |v| {
        if found.is_none() {
            found = warp_exchange(v).map(str::to_string);
        }
    });
    found.map(|call| {
        format!(
            "{whose} a warp shuffle's result (`{call}`: the value of a register of another lane): values exchanged between the lanes of a warp are followed only as sums (`--assoc`) of a block sum under a fixed block size"
        )
    })
}

fn is_read_value(v: &Var) -> bool {
    matches!(v.kind, VarKind::Unknown { .. })
}

/// Builds query text: declarations of every constant and function used.
#[derive(Clone, Default)]
struct Query {
    /// Fold terms of the values encoded: version, index in
    /// `Kernel::folds`, thread copy, constant.
    folds: Vec<(&'static str, usize, Copy, String)>,
    consts: BTreeSet<String>,
    funs: BTreeMap<String, usize>,
    asserts: Vec<String>,
    fresh: usize,
    /// Applications of input functions: the function and its argument.
    inputs: Vec<(String, Expr)>,
    /// `--assoc`: `+` and `*` on values are real arithmetic.
    assoc: bool,
}

impl Query {
    fn declare_vars(&mut self, e: &Expr) {
        e.for_each_var(&mut |v| {
            self.consts.insert(enc_int(&Expr::Var(v.clone()), false));
        });
    }
    fn fun(&mut self, name: &str, arity: usize) -> String {
        let f = format!("|{}|", name.replace(['|', '\\'], "_"));
        self.funs.insert(f.clone(), arity);
        f
    }
    /// Equal digits make equal row-major indices: for each two reads of
    /// one input whose indices are `X * P + Y` with the same `P`.
    fn input_lemmas(&mut self) {
        let mut lemmas = Vec::new();
        for (i, (f, x)) in self.inputs.iter().enumerate() {
            for (g, y) in &self.inputs[i + 1..] {
                if f != g {
                    continue;
                }
                if let Some((xa, ya, xb, yb, _)) = common_digits(x, y) {
                    lemmas.push(format!(
                        "(=> (and (= {} {}) (= {} {})) (= {} {}))",
                        enc(&xa),
                        enc(&xb),
                        enc(&ya),
                        enc(&yb),
                        enc(x),
                        enc(y)
                    ));
                }
            }
        }
        self.asserts.extend(lemmas);
    }
    fn text(&self) -> String {
        let mut s = String::new();
        for c in &self.consts {
            s.push_str(&format!("(declare-const {c} Int)\n"));
        }
        for (f, n) in &self.funs {
            let args = vec!["Int"; *n].join(" ");
            s.push_str(&format!("(declare-fun {f} ({args}) Int)\n"));
            if *n == 2 && f.starts_with("|v.comm.") {
                s.push_str(&format!(
                    "(assert (forall ((x Int) (y Int)) (= ({f} x y) ({f} y x))))\n"
                ));
            }
            // `--assoc`: associative, with 0 the identity of `+` and the
            // zero of `*` (real arithmetic, not floating point).
            if self.assoc && (f == "|v.comm.add|" || f == "|v.comm.mul|") {
                s.push_str(&format!(
                    "(assert (forall ((x Int) (y Int) (z Int)) (! (= ({f} ({f} x y) z) ({f} x ({f} y z))) :pattern (({f} ({f} x y) z)))))\n"
                ));
                let unit = if f == "|v.comm.add|" { "x" } else { "0" };
                s.push_str(&format!(
                    "(assert (forall ((x Int)) (! (= ({f} x 0) {unit}) :pattern (({f} x 0)))))\n"
                ));
            }
        }
        for a in &self.asserts {
            s.push_str(&format!("(assert {a})\n"));
        }
        s
    }
}

/// A thread's copy of the model's thread variables: `thread` names its
/// thread, `block` the block it is in.
#[derive(Clone)]
struct Copy {
    thread: String,
    block: String,
    /// Loop counters of its own (an iteration of a loop that is not around
    /// the access that needs it: a writer of shared memory in an earlier
    /// loop, one of two iterations compared): tagged so; `None`: the
    /// counters are the version's, shared with the accesses of the query.
    iteration: Option<String>,
}

fn copy_var(v: &Var, c: &Copy) -> Option<Var> {
    let tag = match v.kind {
        VarKind::ThreadIdx(_) => &c.thread,
        VarKind::BlockIdx(_) => &c.block,
        VarKind::Counter { .. } => c.iteration.as_ref()?,
        _ => return None,
    };
    Some(Var::new(format!("{}!{tag}", v.name), v.kind))
}

/// Launch sizes fixed by the options or by both versions' preconditions
/// (`blockDim.x == 16`), by name.
pub(crate) type Fixed = BTreeMap<String, i64>;

pub(crate) fn fixed_sizes(a: &Kernel, b: &Kernel, options: &Options) -> Fixed {
    let mut out = Fixed::new();
    for d in 0..3usize {
        if let Some(x) = options.block_dim {
            out.insert(
                crate::verify::smt::block_dim_var(d as u8).name.to_string(),
                x[d] as i64,
            );
        }
        if let Some(x) = options.grid_dim {
            out.insert(
                crate::verify::smt::grid_dim_var(d as u8).name.to_string(),
                x[d] as i64,
            );
        }
    }
    fn conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
        match e {
            Expr::Bin(BinOp::And, x, y) => {
                conjuncts(x, out);
                conjuncts(y, out);
            }
            _ => out.push(e),
        }
    }
    let mut cs = Vec::new();
    for k in [a, b] {
        for e in &k.assumptions {
            conjuncts(e, &mut cs);
        }
    }
    for c in cs {
        if let Expr::Bin(BinOp::Eq, x, y) = c {
            for (v, n) in [(x, y), (y, x)] {
                if let (Expr::Var(v), Some(n)) = (&**v, n.as_const()) {
                    // A size the options fixed stays: a precondition that
                    // contradicts it leaves no launch (`some_launch`).
                    if matches!(v.kind, VarKind::BlockDim(_) | VarKind::GridDim(_)) {
                        out.entry(v.name.to_string()).or_insert(n);
                    }
                }
            }
        }
    }
    out
}

fn with_fixed(e: &Expr, fixed: &Fixed) -> Expr {
    e.subst(&mut |v: &Var| match v.kind {
        VarKind::BlockDim(_) | VarKind::GridDim(_) => fixed.get(&*v.name).map(|n| Expr::Const(*n)),
        _ => None,
    })
}

fn rename(e: &Expr, c: &Copy, fixed: &Fixed) -> Expr {
    with_fixed(e, fixed).subst(&mut |v: &Var| copy_var(v, c).map(Expr::Var))
}

/// The range constraints of a thread copy (and of its block).
fn ranges(c: &Copy, block_too: bool, fixed: &Fixed) -> Vec<Expr> {
    let mut out = Vec::new();
    for d in 0..3u8 {
        let name = crate::model::DIMS[d as usize];
        let t = Expr::Var(Var::new(
            format!("threadIdx.{name}!{}", c.thread),
            VarKind::ThreadIdx(d),
        ));
        let bd = with_fixed(&Expr::Var(crate::verify::smt::block_dim_var(d)), fixed);
        out.push(Expr::bin(BinOp::Ge, t.clone(), Expr::Const(0)));
        out.push(Expr::bin(BinOp::Lt, t, bd));
        if block_too {
            let b = Expr::Var(Var::new(
                format!("blockIdx.{name}!{}", c.block),
                VarKind::BlockIdx(d),
            ));
            let gd = with_fixed(&Expr::Var(crate::verify::smt::grid_dim_var(d)), fixed);
            out.push(Expr::bin(BinOp::Ge, b.clone(), Expr::Const(0)));
            out.push(Expr::bin(BinOp::Lt, b, gd));
        }
    }
    out
}

fn uniform(e: &Expr) -> bool {
    !e.any_node(&mut |n| {
        matches!(n, Expr::Var(v) if matches!(v.kind, VarKind::ThreadIdx(_) | VarKind::BlockIdx(_) | VarKind::Unknown { .. } | VarKind::Counter { .. }))
    })
}

/// `X * P + Y` with `P` the same for every thread: the two digits of a
/// row-major index.
fn digits(e: &Expr) -> Option<(Expr, Expr, Expr)> {
    match syntactic_digits(e) {
        // `x + y * w + i * w`: the top addend's split leaves a multiple of
        // the row in the low digit; the polynomial gathers the row's terms.
        Some((_, p, y)) if indices::has_factor(&y, &p) => indices::digits(e),
        Some(d) => Some(d),
        None => indices::digits(e),
    }
}

/// The digits of two row-major indices over one row `P`:
/// `(X_a, Y_a, X_b, Y_b, P)`. Each index's own reading first; when the two
/// readings take different rows (`y + h * x + 16 * i`, whose last addend
/// reads as a row of 16, against `x + (y + 16 * i) * h`), the polynomial
/// reading of both, which takes a parameter as the row. Without a common
/// row the indices compare as whole numbers, products of variables the
/// solver must reason about, and it runs out of time.
type CommonDigits = (Expr, Expr, Expr, Expr, Expr);

fn common_digits(a: &Expr, b: &Expr) -> Option<CommonDigits> {
    let same_row = |da: Option<(Expr, Expr, Expr)>, db: Option<(Expr, Expr, Expr)>| match (da, db) {
        (Some((xa, pa, ya)), Some((xb, pb, yb))) if pa == pb => Some((xa, ya, xb, yb, pa)),
        _ => None,
    };
    same_row(digits(a), digits(b)).or_else(|| same_row(indices::digits(a), indices::digits(b)))
}

fn syntactic_digits(e: &Expr) -> Option<(Expr, Expr, Expr)> {
    let Expr::Bin(BinOp::Add, l, r) = e else {
        return None;
    };
    for (m, y) in [(l, r), (r, l)] {
        if let Expr::Bin(BinOp::Mul, a, b) = &**m {
            if uniform(b) && !uniform(a) {
                return Some(((**a).clone(), (**b).clone(), (**y).clone()));
            }
            if uniform(a) && !uniform(b) {
                return Some(((**b).clone(), (**a).clone(), (**y).clone()));
            }
        }
    }
    None
}

fn enc(e: &Expr) -> String {
    enc_int(e, false)
}

/// Asserts `a = b` for two (renamed) indices, with the lemma that equal
/// row-major indices have equal digits when the low digits are in range
/// (valid: division is unique).
fn assert_same_index(q: &mut Query, a: &Expr, b: &Expr) {
    q.declare_vars(a);
    q.declare_vars(b);
    q.asserts.push(format!("(= {} {})", enc(a), enc(b)));
    if let Some((xa, ya, xb, yb, p)) = common_digits(a, b) {
        let (p, ya_, yb_) = (enc(&p), enc(&ya), enc(&yb));
        q.asserts.push(format!(
            "(=> (and (<= 0 {ya_}) (< {ya_} {p}) (<= 0 {yb_}) (< {yb_} {p})) (and (= {} {}) (= {ya_} {yb_})))",
            enc(&xa),
            enc(&xb)
        ));
    }
}

fn put(out: &mut BTreeMap<Var, Expr>, v: &Var, t: Expr) -> bool {
    match out.get(v) {
        Some(old) => *old == t,
        None => {
            out.insert(v.clone(), t);
            true
        }
    }
}

/// `a == b`, as equal digits when both are `X * P + Y` with the same `P`
/// (which implies it, and stays linear).
fn same_index(a: &Expr, b: &Expr) -> Expr {
    match common_digits(a, b) {
        Some((xa, ya, xb, yb, _)) => Expr::and(Expr::eq(xa, xb), Expr::eq(ya, yb)),
        None => Expr::eq(a.clone(), b.clone()),
    }
}

/// A thread of the other version that writes index `target`: the index's
/// digits inverted (`blockIdx * C + threadIdx` is `target / C`,
/// `target % C`). Heuristic; the query that uses it checks it.
fn solve_digit(e: &Expr, target: Expr, out: &mut BTreeMap<Var, Expr>) -> bool {
    match e {
        Expr::Var(v) if matches!(v.kind, VarKind::ThreadIdx(_) | VarKind::BlockIdx(_)) => {
            put(out, v, target)
        }
        Expr::Bin(BinOp::Add, l, r) => {
            if let Some(c) = r.as_const() {
                return solve_digit(l, Expr::bin(BinOp::Sub, target, Expr::Const(c)), out);
            }
            for (m, t) in [(l, r), (r, l)] {
                if let (Expr::Bin(BinOp::Mul, x, y), Expr::Var(tv)) = (&**m, &**t) {
                    let (bv, c) = match (&**x, &**y) {
                        (Expr::Var(bv), Expr::Const(c)) | (Expr::Const(c), Expr::Var(bv)) => {
                            (bv, *c)
                        }
                        _ => continue,
                    };
                    if c <= 0
                        || !matches!(tv.kind, VarKind::ThreadIdx(_))
                        || !matches!(bv.kind, VarKind::BlockIdx(_))
                    {
                        continue;
                    }
                    return put(
                        out,
                        bv,
                        Expr::bin(BinOp::Div, target.clone(), Expr::Const(c)),
                    ) && put(out, tv, Expr::bin(BinOp::Rem, target, Expr::Const(c)));
                }
            }
            false
        }
        _ => false,
    }
}

/// The thread of a version whose write of index `w_index` (the version's
/// own variables, launch sizes fixed) lands on `target` (an index of the
/// other copy): each thread and block variable as an expression of the
/// other copy's, or `None`. Variables the index does not determine are 0;
/// with `block`, block variables are that copy's (a writer of shared
/// memory is in the reader's block).
/// `own`: loop counters (as `w_index` names them) whose iteration is the
/// writer's own, solved from the index like thread indices.
fn writer_thread(
    w_index: &Expr,
    target: &Expr,
    block: Option<&Copy>,
    own: &[Var],
) -> Option<BTreeMap<Var, Expr>> {
    let mut out = BTreeMap::new();
    // The syntactic digit rule, else the index as a linear mixed-radix
    // number of the thread indices and the writer's own counters.
    let solvable = |v: &Var| {
        matches!(v.kind, VarKind::ThreadIdx(_))
            || (block.is_none() && matches!(v.kind, VarKind::BlockIdx(_)))
            || own.contains(v)
    };
    let solve = |e: &Expr, t: Expr, out: &mut BTreeMap<Var, Expr>| {
        let before = out.clone();
        if solve_digit(e, t.clone(), out) {
            return true;
        }
        *out = before;
        indices::invert_linear(e, t, &solvable, out)
    };
    let ok = match common_digits(w_index, target) {
        Some((xw, yw, xt, yt, _)) => solve(&xw, xt, &mut out) && solve(&yw, yt, &mut out),
        None => solve(w_index, target.clone(), &mut out),
    };
    if !ok {
        return None;
    }
    if let Some(c) = block {
        if out.keys().any(|v| matches!(v.kind, VarKind::BlockIdx(_))) {
            return None;
        }
        for d in 0..3u8 {
            let v = Var::new(
                format!("blockIdx.{}", crate::model::DIMS[d as usize]),
                VarKind::BlockIdx(d),
            );
            let copy = copy_var(&v, c)?;
            out.insert(v, Expr::Var(copy));
        }
    }
    Some(out)
}

/// `e` (a version's own variables) for the thread `map` describes.
fn at_thread(e: &Expr, map: &BTreeMap<Var, Expr>, fixed: &Fixed) -> Expr {
    with_fixed(e, fixed).subst(&mut |v: &Var| match v.kind {
        VarKind::ThreadIdx(_) | VarKind::BlockIdx(_) => {
            Some(map.get(v).cloned().unwrap_or(Expr::Const(0)))
        }
        // A counter solved from the index: that iteration; else the
        // version's own (shared with the query's other accesses).
        VarKind::Counter { .. } => map.get(v).cloned(),
        _ => None,
    })
}

/// The thread `map` describes is a thread of the launch, and its write `w`
/// runs and writes the location `index`.
/// The index is compared digit by digit, the digits read from the
/// writer's own index before the thread is put in (as [`writer_thread`]
/// read them): once `threadIdx.x` is `t / 32` and `t % 32`, the index is
/// no longer a polynomial, and as a whole number the comparison multiplies
/// variables (equal digits imply equal indices, so this is no weaker).
fn writes_at(w: &Access, map: &BTreeMap<Var, Expr>, index: &Expr, fixed: &Fixed) -> Expr {
    let own = with_fixed(&w.index, fixed);
    let lands = match common_digits(&own, index) {
        Some((xw, yw, xt, yt, _)) => Expr::and(
            Expr::eq(at_thread(&xw, map, fixed), xt),
            Expr::eq(at_thread(&yw, map, fixed), yt),
        ),
        None => same_index(&at_thread(&w.index, map, fixed), index),
    };
    Expr::all([
        thread_ranges(map, fixed),
        at_thread(&w.guard, map, fixed),
        lands,
    ])
}

/// The range constraints of the thread `map` describes.
fn thread_ranges(map: &BTreeMap<Var, Expr>, fixed: &Fixed) -> Expr {
    let mut out = Vec::new();
    for d in 0..3u8 {
        let name = crate::model::DIMS[d as usize];
        for (v, size) in [
            (
                Var::new(format!("threadIdx.{name}"), VarKind::ThreadIdx(d)),
                crate::verify::smt::block_dim_var(d),
            ),
            (
                Var::new(format!("blockIdx.{name}"), VarKind::BlockIdx(d)),
                crate::verify::smt::grid_dim_var(d),
            ),
        ] {
            let x = map.get(&v).cloned().unwrap_or(Expr::Const(0));
            out.push(Expr::bin(BinOp::Ge, x.clone(), Expr::Const(0)));
            out.push(Expr::bin(BinOp::Lt, x, with_fixed(&Expr::Var(size), fixed)));
        }
    }
    Expr::all(out)
}

struct Encoder<'s, 'k> {
    shape: &'s Shape<'k>,
    version: &'static str,
    fixed: &'s Fixed,
    /// In a fold's step: its carried value and the constant standing for it.
    carried: Option<(Var, String)>,
}

/// A shared read a written value depends on: the reading thread, the read,
/// the one write of its array.
type SharedRead<'k> = (Copy, &'k Access, &'k Access);

impl<'k> Encoder<'_, 'k> {
    /// An index or guard (renamed): plain integer arithmetic, no value read
    /// from memory.
    fn plain(&self, q: &mut Query, e: &Expr, c: &Copy, what: &str) -> Result<Expr, String> {
        let mut bad = None;
        e.for_each_var(&mut |v| {
            if is_read_value(v) {
                bad = Some(v.name.to_string());
            }
        });
        if let Some(b) = bad {
            return Err(format!(
                "{what} depends on a value read from memory (`{b}`)"
            ));
        }
        let r = self.counters(&rename(e, c, self.fixed));
        q.declare_vars(&r);
        Ok(r)
    }
    /// The access with its guard and index under this version's counter
    /// names ([`Encoder::counters`]).
    fn access_counters(&self, a: &Access) -> Access {
        Access {
            guard: self.counters(&a.guard),
            index: self.counters(&a.index),
            ..a.clone()
        }
    }
    /// `e` with each loop counter named for this version (`k@0!A`): two
    /// versions' loops may have counters of the same name.
    fn counters(&self, e: &Expr) -> Expr {
        e.subst(&mut |v: &Var| match v.kind {
            VarKind::Counter { .. } => Some(Expr::Var(Var::new(
                format!("{}!{}", v.name, self.version),
                v.kind,
            ))),
            _ => None,
        })
    }
    fn bool(&self, q: &mut Query, e: &Expr, c: &Copy, what: &str) -> Result<String, String> {
        Ok(enc_bool(&self.plain(q, e, c, what)?, false))
    }

    /// The value term of `e` (a written value) for thread `c`; the writers
    /// of shared reads add their constraints to `q`, and each shared read
    /// is listed in `reads` (its writer must exist: another query).
    fn value(
        &self,
        q: &mut Query,
        e: &Expr,
        c: &Copy,
        depth: usize,
        reads: &mut Vec<SharedRead<'k>>,
    ) -> Result<String, String> {
        let mut has_read = false;
        e.for_each_var(&mut |v| has_read |= is_read_value(v));
        if !has_read {
            return Ok(enc(&self.plain(q, e, c, "a value")?));
        }
        Ok(match e {
            // A floating-point literal: the constant of its value.
            Expr::Var(v) if super::float_literal(v).is_some() => {
                enc(&Expr::Const(super::float_literal(v).unwrap_or_default()))
            }
            Expr::Var(v) if self.carried.as_ref().is_some_and(|(h, _)| h == v) => self
                .carried
                .as_ref()
                .map(|(_, x)| x.clone())
                .unwrap_or_default(),
            Expr::Var(v) if self.shape.kernel.folds.iter().any(|f| &f.exit == v) => {
                let i = self
                    .shape
                    .kernel
                    .folds
                    .iter()
                    .position(|f| &f.exit == v)
                    .unwrap_or_default();
                q.fresh += 1;
                let name = format!("|fold.{}.{i}!{}.{}|", self.version, c.thread, q.fresh);
                q.consts.insert(name.clone());
                q.folds.push((self.version, i, c.clone(), name.clone()));
                name
            }
            Expr::Var(v) => {
                let Some((phase, r)) = self.shape.read_of(v) else {
                    if let Some(why) = exchanged(e, "the written value depends on") {
                        return Err(why);
                    }
                    return Err(format!("the value `{}` is not a read of memory", v.name));
                };
                let array = self.shape.name(r);
                let index = self.plain(q, &r.index, c, "an index")?;
                match self.shape.space(r) {
                    MemorySpace::Global => {
                        if self.shape.writer(array)?.is_some() {
                            return Err(format!(
                                "`{array}` is both read and written by the kernel"
                            ));
                        }
                        let f = q.fun(&format!("in.{array}"), 1);
                        q.inputs.push((f.clone(), index.clone()));
                        format!("({f} {})", enc(&index))
                    }
                    _ => {
                        let Some((wphase, w)) = self.shape.writer(array)? else {
                            return Err(format!("`{array}` is read but never written"));
                        };
                        if wphase >= phase || depth > 0 {
                            return Err(format!(
                                "a read of `{array}` not separated by a barrier from its one write"
                            ));
                        }
                        // The write in the same iteration of each loop around
                        // it (their counters are shared): only when those
                        // loops are around the read too.
                        // A write in loops none of which is around the read
                        // (a tile filled by one loop, read by another after
                        // a barrier): the writer's iteration is its own, and
                        // the loop's iterations write disjoint cells, so the
                        // cell holds that one write (`loop_writes`).
                        let (wl, rl) = (self.shape.loops_of(w), self.shape.loops_of(r));
                        let own_iteration = !rl.starts_with(wl);
                        if own_iteration && wl.iter().any(|l| rl.contains(l)) {
                            return Err(format!(
                                "`{}` reads what a loop wrote in one of its iterations (`{}`): not modelled",
                                r.text, w.text
                            ));
                        }
                        q.fresh += 1;
                        let thread = format!("{}{}w{}", c.thread, self.version, q.fresh);
                        let writer = Copy {
                            iteration: own_iteration.then(|| thread.clone()),
                            thread,
                            block: c.block.clone(),
                        };
                        for r in ranges(&writer, false, self.fixed) {
                            q.declare_vars(&r);
                            q.asserts.push(enc_bool(&r, false));
                        }
                        let g = self.bool(q, &w.guard, &writer, "a guard")?;
                        let wi = self.plain(q, &w.index, &writer, "an index")?;
                        q.asserts.push(g);
                        assert_same_index(q, &wi, &index);
                        reads.push((c.clone(), r, w));
                        let Some(wv) = &w.value else {
                            return Err(format!("the value `{}` writes is not modelled", w.text));
                        };
                        self.value(q, wv, &writer, depth + 1, reads)?
                    }
                }
            }
            Expr::Bin(op, x, y) => {
                let comm = matches!(
                    op,
                    BinOp::Add
                        | BinOp::Mul
                        | BinOp::Min
                        | BinOp::Max
                        | BinOp::BitAnd
                        | BinOp::BitOr
                        | BinOp::BitXor
                        | BinOp::Eq
                        | BinOp::Ne
                );
                let kind = if comm { "comm" } else { "op" };
                let f = q.fun(&format!("v.{kind}.{op:?}").to_lowercase(), 2);
                let a = self.value(q, x, c, depth, reads)?;
                let b = self.value(q, y, c, depth, reads)?;
                format!("({f} {a} {b})")
            }
            Expr::Un(op, x) => {
                let f = q.fun(&format!("v.{op:?}").to_lowercase(), 1);
                format!("({f} {})", self.value(q, x, c, depth, reads)?)
            }
            Expr::Ite(k, x, y) => {
                let k = self.bool(q, k, c, "a condition on a value")?;
                let a = self.value(q, x, c, depth, reads)?;
                let b = self.value(q, y, c, depth, reads)?;
                format!("(ite {k} {a} {b})")
            }
            _ => return Err(format!("the value `{e}` is not modelled")),
        })
    }
}

/// A query over the launch (`launch`) and the threads `copies` stand for,
/// each a thread of it (`ranges`).
fn launch_of(a: &Kernel, b: &Kernel, fixed: &Fixed, copies: &[&Copy]) -> Query {
    let mut q = Query::default();
    launch(&mut q, a, b, fixed);
    for c in copies {
        for r in ranges(c, true, fixed) {
            q.declare_vars(&r);
            q.asserts.push(enc_bool(&r, false));
        }
    }
    q
}

/// The launch: sizes at least 1, fixed ones fixed, both versions'
/// preconditions, parameters in their bounds.
fn launch(q: &mut Query, a: &Kernel, b: &Kernel, fixed: &Fixed) {
    for d in 0..3u8 {
        for (var, used) in [
            (
                crate::verify::smt::block_dim_var(d),
                a.block_dims_used[d as usize] || b.block_dims_used[d as usize],
            ),
            (
                crate::verify::smt::grid_dim_var(d),
                a.grid_dims_used[d as usize] || b.grid_dims_used[d as usize],
            ),
        ] {
            let limit = launch_limit(&var);
            let v = Expr::Var(var);
            q.declare_vars(&v);
            let c = match (fixed.get(&*v_name(&v)), used) {
                (Some(n), _) => Expr::eq(v, Expr::Const(*n)),
                (None, false) => Expr::eq(v, Expr::Const(1)),
                // The hardware's limits, as `check` assumes them: a launch
                // past them fails and runs no thread. Without them a
                // grid computed from a parameter (`width / 32` of a
                // negative width, converted to unsigned) wraps to a size
                // no launch has, and the proof fails there.
                (None, true) => Expr::and(
                    Expr::bin(BinOp::Ge, v.clone(), Expr::Const(1)),
                    Expr::bin(BinOp::Le, v, Expr::Const(limit)),
                ),
            };
            q.asserts.push(enc_bool(&c, false));
        }
    }
    for k in [a, b] {
        for e in &k.assumptions {
            let e = with_fixed(e, fixed);
            q.declare_vars(&e);
            q.asserts.push(enc_bool(&e, false));
        }
        for acc in k.accesses() {
            for e in [&acc.guard, &acc.index] {
                e.for_each_var(&mut |v| {
                    if let VarKind::Param { lo, hi } = v.kind {
                        let x = Expr::Var(v.clone());
                        q.declare_vars(&x);
                        let c = enc_bool(
                            &Expr::and(
                                Expr::bin(BinOp::Ge, x.clone(), Expr::Const(lo)),
                                Expr::bin(BinOp::Le, x, Expr::Const(hi)),
                            ),
                            false,
                        );
                        if !q.asserts.contains(&c) {
                            q.asserts.push(c);
                        }
                    }
                });
            }
        }
    }
}

/// The largest size of a launch dimension the hardware allows (blocks of
/// up to 1024 threads, 64 in z; grids of 2^31 - 1 blocks in x, 65535 in y
/// and z).
fn launch_limit(v: &Var) -> i64 {
    match v.kind {
        VarKind::BlockDim(2) => 64,
        VarKind::BlockDim(_) => 1024,
        VarKind::GridDim(0) => i32::MAX as i64,
        _ => 65535,
    }
}

fn v_name(e: &Expr) -> String {
    match e {
        Expr::Var(v) => v.name.to_string(),
        _ => String::new(),
    }
}

/// Why a proof did not go through, with the solver's model when a query
/// was satisfiable (launch sizes and parameters to replay it with).
#[derive(Debug)]
pub(crate) struct Failure {
    pub reason: String,
    pub model: Option<BTreeMap<String, i64>>,
    /// A precondition on the launch the proof needs and the launch does
    /// not state (a tree reduction's power-of-two block): the comparison
    /// may be proved under it and refuted outside it (a conditional
    /// answer, `compare_under`).
    pub needs: Option<Expr>,
    /// The result of a version is undefined in CUDA on this launch (a
    /// shuffle reads the register of a lane no thread of the block is).
    pub undefined: bool,
}

impl From<String> for Failure {
    fn from(reason: String) -> Failure {
        Failure {
            reason,
            model: None,
            needs: None,
            undefined: false,
        }
    }
}

/// Solves a query: `Ok(())` if unsat.
fn unsat(q: &Query, options: &Options, what: &str, queries: &mut u32) -> Result<(), Failure> {
    use z3::{Params, SatResult, Solver};
    *queries += 1;
    let text = q.text();
    if std::env::var_os("SYNCSCOPE_EQUIV_DUMP").is_some() {
        eprintln!("; query: {what}\n{text}");
    }
    // Each query in a fresh Z3 context: the thread's own context keeps the
    // terms of every earlier query (of this comparison and of any other run
    // on the same thread: a test, the server's blocking pool), and Z3's
    // search depends on that history; a query that took 0.4 s alone ran
    // into the 10 s safety net after twenty other pairs. Same input, same
    // verdict.
    z3::with_z3_config(&z3::Config::new(), || {
        let solver = Solver::new();
        let mut params = Params::new();
        params.set_u32("rlimit", options.rlimit);
        // No Z3 `timeout` parameter: libz3 4.8's timer can deadlock (see
        // `verify/watchdog.rs`); the wall-clock safety net is the
        // watchdog's interrupt, as for `check`'s queries.
        solver.set_params(&params);
        crate::verify::smt::load(&solver, &text).map_err(Failure::from)?;
        let deadline = std::time::Instant::now()
            + std::time::Duration::from_millis(u64::from(options.timeout_ms.max(1)));
        let outcome = {
            let _watched = crate::verify::watchdog::watch(
                solver.get_context().get_z3_context(),
                deadline,
                None,
            );
            solver.check()
        };
        match outcome {
            SatResult::Unsat => Ok(()),
            SatResult::Sat => {
                let read = |m: z3::Model| -> BTreeMap<String, i64> {
                    q.consts
                        .iter()
                        .filter_map(|c| {
                            let name = c.trim_matches('|');
                            let value = m.eval(&z3::ast::Int::new_const(name), true)?.as_i64()?;
                            Some((name.to_string(), value))
                        })
                        .collect()
                };
                let mut model = solver.get_model().map(read);
                // The model is replayed on the concrete interpreter, which
                // runs only small launches: ask once more for one with a
                // small grid and small numbers (a difference between whole
                // tiles shows on a 2 x 2 grid as well as on 65535 x 65535).
                // Only a witness's size depends on it: a difference is
                // reported only once the concrete run shows it.
                solver.push();
                let small = q
                    .consts
                    .iter()
                    .map(|c| {
                        let hi = if c.trim_matches('|').starts_with("gridDim.") {
                            4
                        } else {
                            1024
                        };
                        format!("(and (<= (- 1024) {c}) (<= {c} {hi}))")
                    })
                    .collect::<Vec<_>>();
                let declared: String = q
                    .consts
                    .iter()
                    .map(|c| format!("(declare-const {c} Int)\n"))
                    .collect();
                let bounded = crate::verify::smt::load(
                    &solver,
                    &format!("{declared}(assert (and true {}))", small.join(" ")),
                )
                .is_ok();
                if bounded {
                    let _watched = crate::verify::watchdog::watch(
                        solver.get_context().get_z3_context(),
                        deadline,
                        None,
                    );
                    if solver.check() == SatResult::Sat {
                        model = solver.get_model().map(read).or(model);
                    }
                }
                solver.pop(1);
                Err(Failure {
                    reason: format!("the solver finds {what}"),
                    model,
                    needs: None,
                    undefined: false,
                })
            }
            SatResult::Unknown => Err(format!(
                "the solver could not decide whether there is {what} ({})",
                solver.get_reason_unknown().unwrap_or_default()
            )
            .into()),
        }
    })
}

/// Folds (values loops accumulate) in the two written values, paired in
/// order: each pair is shown equal in the query's context (the same launch,
/// the two writing threads) by one query: the same initial value, the same
/// iterations (the loops' own guards agree at every iteration `j`), and the
/// same step at every iteration `j` from the same carried value. Then the
/// two folds are one value, asserted in `q`. Same operation order: no
/// associativity is used.
fn same_folds<'k>(
    q: &mut Query,
    ea: &Encoder<'_, 'k>,
    eb: &Encoder<'_, 'k>,
    options: &Options,
    queries: &mut u32,
    ra: &mut Vec<SharedRead<'k>>,
    rb: &mut Vec<SharedRead<'k>>,
) -> Result<(), Failure> {
    let fa: Vec<_> = q.folds.iter().filter(|f| f.0 == "A").cloned().collect();
    let fb: Vec<_> = q.folds.iter().filter(|f| f.0 == "B").cloned().collect();
    if fa.len() != fb.len() {
        return Err(format!(
            "the written values accumulate over {} loop(s) in one version and {} in the other: only folds matched one to one are compared",
            fa.len(),
            fb.len()
        )
        .into());
    }
    for ((_, ia, ca, na), (_, ib, cb, nb)) in fa.iter().zip(&fb) {
        let (fold_a, fold_b) = (&ea.shape.kernel.folds[*ia], &eb.shape.kernel.folds[*ib]);
        let (fa_, fb_) = (
            flatten(ea.shape.kernel, fold_a)?,
            flatten(eb.shape.kernel, fold_b)?,
        );
        let (la, lb) = (fa_.outer, fb_.outer);
        let mut s = q.clone();
        s.folds.clear();
        s.fresh += 1;
        let (j, x) = (
            format!("|fold.j{}|", s.fresh),
            format!("|fold.x{}|", s.fresh),
        );
        s.consts.insert(j.clone());
        s.consts.insert(x.clone());
        s.asserts.push(format!("(>= {j} 0)"));
        for (f, e) in [(&fa_, ea), (&fb_, eb)] {
            let k = e.counters(&Expr::Var(f.outer.counter.clone()));
            s.declare_vars(&k);
            match f.inner {
                None => s.asserts.push(format!("(= {} {j})", enc(&k))),
                // Iteration j of the flat loop: tile j / T, element j % T.
                Some((inner, t)) => {
                    let ki = e.counters(&Expr::Var(inner.counter.clone()));
                    s.declare_vars(&ki);
                    s.asserts.push(format!("(= {} (div {j} {t}))", enc(&k)));
                    s.asserts.push(format!("(= {} (mod {j} {t}))", enc(&ki)));
                }
            }
        }
        let (fold_a, fold_b) = (fa_.step, fb_.step);
        let sa = Encoder {
            shape: ea.shape,
            version: ea.version,
            fixed: ea.fixed,
            carried: Some((fold_a.carried.clone(), x.clone())),
        };
        let sb = Encoder {
            shape: eb.shape,
            version: eb.version,
            fixed: eb.fixed,
            carried: Some((fold_b.carried.clone(), x.clone())),
        };
        let (init_a, init_b) = (&fa_.init, &fb_.init);
        let ga = sa.bool(&mut s, &la.guard, ca, "a loop's condition")?;
        let gb = sb.bool(&mut s, &lb.guard, cb, "a loop's condition")?;
        let init_a = sa.value(&mut s, init_a, ca, 0, ra)?;
        let init_b = sb.value(&mut s, init_b, cb, 0, rb)?;
        let next_a = sa.value(&mut s, &fold_a.next, ca, 0, ra)?;
        let next_b = sb.value(&mut s, &fold_b.next, cb, 0, rb)?;
        if !s.folds.is_empty() {
            return Err(format!(
                "the loop `{}` accumulates a value another loop accumulated: not modelled yet",
                loop_name(la)
            )
            .into());
        }
        s.input_lemmas();
        s.asserts.push(format!(
            "(or (not (= {init_a} {init_b})) (not (= {ga} {gb})) (and {ga} (not (= {next_a} {next_b}))))"
        ));
        let what = format!(
            "an iteration `j` where the loops `{}` and `{}` differ (condition, start value or step)",
            loop_name(la),
            loop_name(lb)
        );
        // A difference in one step is not a difference in the result: a
        // satisfiable query leaves the pair unproved, never different.
        match unsat(&s, options, &what, queries) {
            Ok(()) => q.asserts.push(format!("(= {na} {nb})")),
            Err(f) => {
                return Err(Failure {
                    reason: format!("the accumulations could not be shown equal ({})", f.reason),
                    model: None,
                    needs: None,
                    undefined: false,
                })
            }
        }
    }
    Ok(())
}

/// A fold as one loop: its loop, and when its step is a whole inner fold
/// from the carried value over `k = 0 .. T` (`k < T`, `T` a constant: every
/// iteration of the outer loop runs it exactly `T` times), that inner loop
/// and `T`; the flat iteration `j` is `t * T + k` in the same order (tile
/// major), so no reordering is involved. `step` is the fold whose `next`
/// is the flat step; `init` the start value.
struct Flat<'k> {
    outer: &'k crate::model::Loop,
    inner: Option<(&'k crate::model::Loop, i64)>,
    step: &'k crate::model::Fold,
    init: Expr,
}

fn flatten<'k>(k: &'k Kernel, fold: &'k crate::model::Fold) -> Result<Flat<'k>, String> {
    let find = |id: usize| {
        k.loops()
            .into_iter()
            .find(|l| l.id == id)
            .ok_or_else(|| "a fold's loop is missing from the model".to_string())
    };
    let outer = find(fold.loop_id)?;
    // The step is the exit value of an inner fold: a nest; otherwise one loop.
    let inner_fold = match &fold.next {
        Expr::Var(e) => k.folds.iter().find(|f| &f.exit == e),
        _ => None,
    };
    let Some(inner_fold) = inner_fold else {
        return Ok(Flat {
            outer,
            inner: None,
            step: fold,
            init: fold.init.clone(),
        });
    };
    let inner = find(inner_fold.loop_id)?;
    if inner_fold.init != Expr::Var(fold.carried.clone()) {
        return Err(format!(
            "the loop `{}` does not continue the accumulation of the loop `{}`: not modelled",
            loop_name(inner),
            loop_name(outer)
        ));
    }
    let t = match &inner.guard {
        Expr::Bin(BinOp::Lt, c, n) if **c == Expr::Var(inner.counter.clone()) => n.as_const(),
        _ => None,
    };
    match t {
        Some(t) if t > 0 => Ok(Flat {
            outer,
            inner: Some((inner, t)),
            step: inner_fold,
            init: fold.init.clone(),
        }),
        _ => Err(format!(
            "the inner loop `{}` of `{}` does not run a constant number of times from 0 (`{}`): its folds are not flattened",
            loop_name(inner),
            loop_name(outer),
            inner.guard
        )),
    }
}

/// Proves the two kernels equivalent, or says why not.
pub(crate) fn prove(
    a: &Kernel,
    b: &Kernel,
    options: &Options,
    assoc: bool,
    queries: &mut u32,
) -> Result<(), Failure> {
    let fixed = fixed_sizes(a, b, options);
    // A block's sum that ends in warp shuffles, under a fixed block size:
    // run in lockstep and read as a serial sum (`block_unroll`).
    let unrolled = |k: &Kernel| -> Result<Option<Kernel>, Failure> {
        if !assoc {
            return Ok(None);
        }
        block_unroll::summed(k, &fixed).map_err(|e| Failure {
            reason: e.reason,
            model: None,
            needs: None,
            undefined: e.undefined,
        })
    };
    let (ua, ub) = (unrolled(a)?, unrolled(b)?);
    let (a, b) = (ua.as_ref().unwrap_or(a), ub.as_ref().unwrap_or(b));
    // Blocks numbered in another order (a diagonal): each version with its
    // block coordinates as its block index, once they are shown to number
    // the grid's blocks once each.
    let (ra, rb) = (
        block_order::renumbered(a, (a, b), &fixed, options, queries),
        block_order::renumbered(b, (a, b), &fixed, options, queries),
    );
    let (a, b) = (ra.as_ref().unwrap_or(a), rb.as_ref().unwrap_or(b));
    // A partial sum kept in a register and stored back to the thread's
    // cell at every step: read from the cell (`register_mirror`).
    let ((ma, na), (mb, nb)) = (
        register_mirror::mirrored(a, (a, b), &fixed, options, queries),
        register_mirror::mirrored(b, (a, b), &fixed, options, queries),
    );
    let (a, b) = (ma.as_ref().unwrap_or(a), mb.as_ref().unwrap_or(b));
    let notes: Vec<String> = na.into_iter().chain(nb).collect();
    proved(a, b, &fixed, assoc, options, queries).map_err(|f| {
        if notes.is_empty() {
            return f;
        }
        Failure {
            reason: format!("{} ({})", f.reason, notes.join("; ")),
            ..f
        }
    })
}

/// [`prove`] of the kernels as the rewrites left them.
fn proved(
    a: &Kernel,
    b: &Kernel,
    fixed: &Fixed,
    assoc: bool,
    options: &Options,
    queries: &mut u32,
) -> Result<(), Failure> {
    let fixed = fixed.clone();
    let (sa, sb) = (shape(a, assoc)?, shape(b, assoc)?);
    let outputs: BTreeSet<&str> = [&sa, &sb]
        .iter()
        .flat_map(|s| {
            s.accesses
                .iter()
                .filter(|(_, x)| x.kind.writes() && s.space(x) == MemorySpace::Global)
                .map(|(_, x)| s.name(x))
        })
        .collect();
    let ca = Copy {
        thread: "a".into(),
        block: "a".into(),
        iteration: None,
    };
    let cb = Copy {
        thread: "b".into(),
        block: "b".into(),
        iteration: None,
    };
    let ea = Encoder {
        shape: &sa,
        version: "A",
        fixed: &fixed,
        carried: None,
    };
    let eb = Encoder {
        shape: &sb,
        version: "B",
        fixed: &fixed,
        carried: None,
    };
    let not_modelled = |w: &Access| format!("the value `{}` writes is not modelled", w.text);
    for out in outputs {
        let (wa, wb) = (sa.writer(out)?, sb.writer(out)?);
        // A write inside loops stands for the set of its iterations' writes.
        for (en, w) in [(&ea, wa), (&eb, wb)] {
            if let Some((_, w)) = w {
                loop_writes::check(en, w, (a, b), &fixed, options, queries)?;
            }
        }
        // The values at one location that both write.
        if let (Some((_, wa)), Some((_, wb))) = (wa, wb) {
            let mut q = launch_of(a, b, &fixed, &[&ca, &cb]);
            q.assoc = assoc;
            let ga = ea.bool(&mut q, &wa.guard, &ca, "a guard")?;
            let ia = ea.plain(&mut q, &wa.index, &ca, "an index")?;
            let gb = eb.bool(&mut q, &wb.guard, &cb, "a guard")?;
            let ib = eb.plain(&mut q, &wb.index, &cb, "an index")?;
            q.asserts.extend([ga, gb]);
            assert_same_index(&mut q, &ia, &ib);
            let (mut ra, mut rb) = (Vec::new(), Vec::new());
            let va_e = wa.value.as_ref().ok_or_else(|| not_modelled(wa))?;
            let vb_e = wb.value.as_ref().ok_or_else(|| not_modelled(wb))?;
            let sums = if assoc {
                assoc::sums(
                    &mut q,
                    &ea,
                    &eb,
                    va_e,
                    vb_e,
                    (&ca, &cb),
                    (a, b),
                    options,
                    queries,
                    (&mut ra, &mut rb),
                )?
            } else {
                None
            };
            match sums {
                Some(differ) => q.asserts.push(differ),
                None => {
                    let va = ea.value(&mut q, va_e, &ca, 0, &mut ra)?;
                    let vb = eb.value(&mut q, vb_e, &cb, 0, &mut rb)?;
                    same_folds(&mut q, &ea, &eb, options, queries, &mut ra, &mut rb)?;
                    q.asserts.push(format!("(not (= {va} {vb}))"));
                }
            }
            q.input_lemmas();
            unsat(
                &q,
                options,
                &format!("a location of `{out}` where the two versions write different values"),
                queries,
            )?;
            // Every shared read such a value depends on has its writer.
            for (enc_, w0, reads) in [(&ea, wa, &ra), (&eb, wb, &rb)] {
                for (c, r, w) in reads {
                    let mut q = launch_of(a, b, &fixed, &[c]);
                    let g0 = enc_.bool(&mut q, &w0.guard, c, "a guard")?;
                    let gr = enc_.bool(&mut q, &r.guard, c, "a guard")?;
                    let ir = enc_.plain(&mut q, &r.index, c, "an index")?;
                    q.asserts.extend([g0, gr]);
                    let w_index = enc_.counters(&with_fixed(&w.index, &fixed));
                    // A writer in loops not around the read: any of its
                    // iterations, each a write of its own cell.
                    let (wl, rl) = (enc_.shape.loops_of(w), enc_.shape.loops_of(r));
                    let own: Vec<usize> = if rl.starts_with(wl) {
                        Vec::new()
                    } else {
                        wl.to_vec()
                    };
                    if !own.is_empty() {
                        loop_writes::check(enc_, w, (a, b), &fixed, options, queries)?;
                    }
                    let own = loop_writes::counters(enc_, &own);
                    let Some(map) = writer_thread(&w_index, &ir, Some(c), &own) else {
                        return Err(format!(
                            "no writer of what `{}` reads could be derived from the index",
                            r.text
                        )
                        .into());
                    };
                    let writes = writes_at(&enc_.access_counters(w), &map, &ir, &fixed);
                    q.declare_vars(&writes);
                    q.asserts
                        .push(format!("(not {})", enc_bool(&writes, false)));
                    unsat(
                        &q,
                        options,
                        &format!("a read `{}` of a location no thread wrote", r.text),
                        queries,
                    )?;
                }
            }
        }
        // Written by one version and not by the other.
        for (ex, ey, wx, wy, cx) in [(&ea, &eb, wa, wb, &ca), (&eb, &ea, wb, wa, &cb)] {
            let Some((_, wx)) = wx else { continue };
            let mut q = launch_of(a, b, &fixed, &[cx]);
            let gx = ex.bool(&mut q, &wx.guard, cx, "a guard")?;
            let ix = ex.plain(&mut q, &wx.index, cx, "an index")?;
            q.asserts.push(gx);
            if let Some((_, wy)) = wy {
                let y_index = ey.counters(&with_fixed(&wy.index, &fixed));
                // Else the thread with the same indices (the query checks it).
                let same = || {
                    let mut m = BTreeMap::new();
                    for d in 0..3u8 {
                        let name = crate::model::DIMS[d as usize];
                        for v in [
                            Var::new(format!("threadIdx.{name}"), VarKind::ThreadIdx(d)),
                            Var::new(format!("blockIdx.{name}"), VarKind::BlockIdx(d)),
                        ] {
                            let c = copy_var(&v, cx)?;
                            m.insert(v, Expr::Var(c));
                        }
                    }
                    Some(m)
                };
                let own = loop_writes::counters(ey, ey.shape.loops_of(wy));
                let Some(map) = writer_thread(&y_index, &ix, None, &own).or_else(same) else {
                    return Err(format!(
                        "no thread of the other version writing what `{}` writes could be derived from the index",
                        wx.text
                    )
                    .into());
                };
                let writes = writes_at(&ey.access_counters(wy), &map, &ix, &fixed);
                q.declare_vars(&writes);
                q.asserts
                    .push(format!("(not {})", enc_bool(&writes, false)));
            }
            unsat(
                &q,
                options,
                &format!("a location of `{out}` that one version writes and the other does not"),
                queries,
            )?;
        }
    }
    Ok(())
}

/// Whether some launch has the fixed sizes and satisfies both versions'
/// preconditions: a proof under none would hold vacuously. `Err` when the
/// solver cannot tell (or gives no model).
pub(crate) fn some_launch(
    a: &Kernel,
    b: &Kernel,
    options: &Options,
    queries: &mut u32,
) -> Result<bool, Failure> {
    let q = launch_of(a, b, &fixed_sizes(a, b, options), &[]);
    match unsat(&q, options, "a launch both versions allow", queries) {
        Ok(()) => Ok(false),
        Err(f) if f.model.is_some() => Ok(true),
        Err(f) => Err(f),
    }
}
