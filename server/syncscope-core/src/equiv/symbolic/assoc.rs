//! `syncscope equiv --assoc`: `+` and `*` on values treated as real
//! arithmetic (associative, commutative, `x + 0 == x`, `0 * y == 0`), an
//! assumption about floating point the user makes.
//!
//! A written value that accumulates is a sum `Σ_{j ∈ S} term(j)` over one
//! bound variable `j`:
//! - a fold (`acc += e` in a loop from 0; a tiled pair of loops flattened
//!   as `same_folds` does) is the sum of `e` over its iterations (its guard
//!   checked monotone: the iterations are a prefix);
//! - a read of shared memory after an in-place tree reduction
//!   (`if (t < s) sh[t] += sh[t + s]` with halving `s`, or
//!   `if (t % (2 * s) == 0)` / `sh[2 * s * t] += sh[2 * s * t + s]` with
//!   doubling `s`) is the sum of the cells' initial values over the block,
//!   once the invariant "cell `c` holds the sum over its set at stride `s`"
//!   (a template chosen from the pattern) is checked inductively: base,
//!   step and exit, each an unsat query. It is never assumed.
//!
//! Two sums are equal when `ite(j ∈ S_A, term_A(j), 0)` and
//! `ite(j ∈ S_B, term_B(j), 0)` agree for every `j` (then both are the sum
//! of those over the union of the sets; terms outside a set add 0).

use super::{
    copy_var, enc, flatten, launch_of, unsat, with_fixed, Copy, Encoder, Failure, Query, SharedRead,
};
use crate::model::{Access, AccessKind, BinOp, Expr, Kernel, MemorySpace, Stmt, Var, VarKind};
use crate::options::Options;
use crate::verify::smt::enc_bool;

/// The bound variable of the sums in a query.
const J: &str = "sum.j";

/// The largest block size (a power of two, `2^MAX_LOG_BLOCK`) a tree
/// reduction over a symbolic block size is checked for: the hardware's
/// limit of 1024 threads per block.
const MAX_LOG_BLOCK: u32 = 10;

/// The most iterations of a tree reduction's loop (a query shows it runs no
/// more): a halving or doubling stride over at most 2^14 cells.
const MAX_ITERATIONS: i64 = 16;

/// `(blockDim.x & (blockDim.x - 1)) == 0 && blockDim.x <= 1024`: the
/// block sizes a tree reduction over a symbolic block is checked for.
pub(crate) fn power_of_two_block() -> Expr {
    let n = Expr::Var(crate::verify::smt::block_dim_var(0));
    Expr::and(
        Expr::eq(
            Expr::bin(
                BinOp::BitAnd,
                n.clone(),
                Expr::bin(BinOp::Sub, n.clone(), Expr::Const(1)),
            ),
            Expr::Const(0),
        ),
        Expr::bin(BinOp::Le, n, Expr::Const(1i64 << MAX_LOG_BLOCK)),
    )
}

fn int_var(name: &str) -> Expr {
    Expr::Var(Var::new(name, VarKind::Counter { pow2: false }))
}

/// Whether `e` is the literal zero (integer or floating point).
fn is_zero(e: &Expr) -> bool {
    match e {
        Expr::Const(0) => true,
        Expr::Var(v) => crate::equiv::float_literal(v) == Some(0),
        _ => false,
    }
}

/// The goal of the comparison of the two written values as sums (`Some`:
/// an SMT formula true where they differ at `j`), or `None` when neither
/// is a sum (the plain comparison then applies).
#[allow(clippy::too_many_arguments)]
pub(super) fn sums<'k>(
    q: &mut Query,
    ea: &Encoder<'_, 'k>,
    eb: &Encoder<'_, 'k>,
    va: &Expr,
    vb: &Expr,
    (ca, cb): (&Copy, &Copy),
    (a, b): (&Kernel, &Kernel),
    options: &Options,
    queries: &mut u32,
    (ra, rb): (&mut Vec<SharedRead<'k>>, &mut Vec<SharedRead<'k>>),
) -> Result<Option<String>, Failure> {
    let j = int_var(J);
    q.declare_vars(&j);
    let sa = sum_of(q, ea, va, ca, (a, b), options, queries, ra)?;
    let sb = sum_of(q, eb, vb, cb, (a, b), options, queries, rb)?;
    if sa.is_none() && sb.is_none() {
        return Ok(None);
    }
    fn single<'k>(
        q: &mut Query,
        e: &Encoder<'_, 'k>,
        v: &Expr,
        c: &Copy,
        reads: &mut Vec<SharedRead<'k>>,
    ) -> Result<(String, String), String> {
        let term = e.value(q, v, c, 0, reads)?;
        Ok((format!("(= |{J}| 0)"), term))
    }
    let (sa, ta) = match sa {
        Some(s) => s,
        None => single(q, ea, va, ca, ra)?,
    };
    let (sb, tb) = match sb {
        Some(s) => s,
        None => single(q, eb, vb, cb, rb)?,
    };
    if !q.folds.is_empty() {
        for (version, i, _, _) in &q.folds {
            let kernel = if *version == ea.version { a } else { b };
            let adds = "a written value accumulates over a loop that adds";
            if let Some(why) = kernel
                .folds
                .get(*i)
                .and_then(|f| super::exchanged(&f.next, adds))
            {
                return Err(why.into());
            }
        }
        return Err(
            "a written value accumulates over a loop in a form not read as a sum (only `acc += e` from 0)"
                .to_string()
                .into(),
        );
    }
    Ok(Some(format!(
        "(not (= (ite {sa} {ta} 0) (ite {sb} {tb} 0)))"
    )))
}

/// `e` as a sum over `|sum.j|`: (set, term), or `None` if it is not one.
#[allow(clippy::too_many_arguments)]
fn sum_of<'k>(
    q: &mut Query,
    en: &Encoder<'_, 'k>,
    e: &Expr,
    c: &Copy,
    kernels: (&Kernel, &Kernel),
    options: &Options,
    queries: &mut u32,
    reads: &mut Vec<SharedRead<'k>>,
) -> Result<Option<(String, String)>, Failure> {
    let Expr::Var(v) = e else { return Ok(None) };
    let kernel = en.shape.kernel;
    if let Some(fold) = kernel.folds.iter().find(|f| &f.exit == v) {
        return fold_sum(q, en, fold, c, kernels, options, queries, reads).map(Some);
    }
    let Some((phase, r)) = en.shape.read_of(v) else {
        return Ok(None);
    };
    if en.shape.space(r) == MemorySpace::Global {
        return Ok(None);
    }
    let array = r.array;
    let writes: Vec<_> = en
        .shape
        .accesses
        .iter()
        .filter(|(_, x)| x.kind.writes() && x.array == array)
        .collect();
    if writes.len() != 2 {
        return Ok(None);
    }
    let in_loop = |x: &Access| !en.shape.loops_of(x).is_empty();
    let (Some((p0, w0)), Some((pl, wl))) = (
        writes.iter().find(|(_, x)| !in_loop(x)).copied(),
        writes.iter().find(|(_, x)| in_loop(x)).copied(),
    ) else {
        return Ok(None);
    };
    let name = &kernel.arrays[array].name;
    if !(*p0 < *pl && *pl < phase) || in_loop(r) {
        return Err(format!(
            "`{}` reads `{name}`, reduced in a loop, not after the loop's last barrier: not modelled",
            r.text
        )
        .into());
    }
    tree_sum(q, en, (w0, wl, r), c, kernels, options, queries).map(Some)
}

/// A fold `acc = 0; for (...) acc += e;` as the sum of `e` over its
/// iterations.
#[allow(clippy::too_many_arguments)]
fn fold_sum<'k>(
    q: &mut Query,
    en: &Encoder<'_, 'k>,
    fold: &'k crate::model::Fold,
    c: &Copy,
    (a, b): (&Kernel, &Kernel),
    options: &Options,
    queries: &mut u32,
    reads: &mut Vec<SharedRead<'k>>,
) -> Result<(String, String), Failure> {
    let kernel = en.shape.kernel;
    let flat = flatten(kernel, fold)?;
    let loop_name = super::loop_name(flat.outer);
    if let Some(why) = super::exchanged(&flat.step.next, &format!("the loop `{loop_name}` adds")) {
        return Err(why.into());
    }
    if !is_zero(&flat.init) {
        return Err(format!(
            "the accumulation of the loop `{loop_name}` does not start from 0: not read as a sum"
        )
        .into());
    }
    let carried = Expr::Var(flat.step.carried.clone());
    let term = match &flat.step.next {
        Expr::Bin(BinOp::Add, x, y) if **x == carried => (**y).clone(),
        Expr::Bin(BinOp::Add, x, y) if **y == carried => (**x).clone(),
        other => {
            return Err(format!(
                "the loop `{loop_name}` accumulates `{other}`, not `acc + e`: not read as a sum"
            )
            .into())
        }
    };
    if term.mentions(&mut |u| *u == flat.step.carried) {
        return Err(format!(
            "the loop `{loop_name}` adds a term that depends on the sum: not read as a sum"
        )
        .into());
    }
    // The outer guard is monotone: once false, false at every later
    // iteration, so the iterations are the j with the guard true.
    let outer = flat.outer;
    let i = int_var(&format!("mono.i.{}", en.version));
    let at = |k: Expr| {
        outer
            .guard
            .subst(&mut |v: &Var| (*v == outer.counter).then(|| k.clone()))
    };
    let mut m = launch_of(a, b, en.fixed, &[c]);
    let g0 = en.bool(&mut m, &at(i.clone()), c, "a loop's condition")?;
    let g1 = en.bool(
        &mut m,
        &at(Expr::Bin(
            BinOp::Add,
            std::sync::Arc::new(i.clone()),
            std::sync::Arc::new(Expr::Const(1)),
        )),
        c,
        "a loop's condition",
    )?;
    m.declare_vars(&i);
    m.asserts.push(format!("(>= {} 0)", enc(&i)));
    m.asserts.push(format!("(not {g0})"));
    m.asserts.push(g1);
    unsat(
        &m,
        options,
        &format!("an iteration after the loop `{loop_name}` ends where its condition holds again"),
        queries,
    )?;
    // The counters as functions of j.
    let k = en.counters(&Expr::Var(outer.counter.clone()));
    q.declare_vars(&k);
    let mut set = vec![format!("(>= |{J}| 0)")];
    match flat.inner {
        None => q.asserts.push(format!("(= {} |{J}|)", enc(&k))),
        Some((inner, t)) => {
            let ki = en.counters(&Expr::Var(inner.counter.clone()));
            q.declare_vars(&ki);
            q.asserts.push(format!("(= {} (div |{J}| {t}))", enc(&k)));
            q.asserts.push(format!("(= {} (mod |{J}| {t}))", enc(&ki)));
        }
    }
    set.push(en.bool(q, &outer.guard, c, "a loop's condition")?);
    let set = format!("(and {})", set.join(" "));
    // What encoding the term asserts (the writers of its shared reads)
    // holds where the term counts: inside the set.
    let before = q.asserts.len();
    let term = en.value(q, &term, c, 0, reads)?;
    let added: Vec<String> = q.asserts.drain(before..).collect();
    if !added.is_empty() {
        q.asserts
            .push(format!("(=> {set} (and true {}))", added.join(" ")));
    }
    Ok((set, term))
}

/// The loop around `wl` and its counter.
fn loop_of<'k>(
    kernel: &'k Kernel,
    en: &Encoder<'_, 'k>,
    wl: &Access,
) -> Option<&'k crate::model::Loop> {
    let id = *en.shape.loops_of(wl).last()?;
    kernel.body.iter().find_map(|s| match s {
        Stmt::Loop(l) if l.id == id => Some(l),
        _ => None,
    })
}

/// The read of a value variable in the loop's body.
fn body_read<'k>(l: &'k crate::model::Loop, v: &Expr) -> Option<&'k Access> {
    l.body.iter().find_map(|s| match s {
        Stmt::Access(a) if a.kind == AccessKind::Read && a.value.as_ref() == Some(v) => Some(a),
        _ => None,
    })
}

/// The in-place tree reduction's result read by `r`: the sum of the
/// cells' initial values over the block, after its invariant is checked.
fn tree_sum<'k>(
    q: &mut Query,
    en: &Encoder<'_, 'k>,
    (w0, wl, r): (&'k Access, &'k Access, &'k Access),
    c: &Copy,
    (a, b): (&Kernel, &Kernel),
    options: &Options,
    queries: &mut u32,
) -> Result<(String, String), Failure> {
    let kernel = en.shape.kernel;
    let fixed = en.fixed;
    let unsupported = |why: &str| -> Failure {
        format!(
            "the reduction of `{}` in place ({}) is not one whose invariant is known: {why}",
            kernel.arrays[wl.array].name, wl.text
        )
        .into()
    };
    let l = loop_of(kernel, en, wl)
        .ok_or_else(|| unsupported("not a loop at the kernel's top level"))?;
    // The body: two reads of the array, the write of their sum, a barrier.
    let accesses: Vec<&Access> = l
        .body
        .iter()
        .filter_map(|s| match s {
            Stmt::Access(x) => Some(x),
            _ => None,
        })
        .collect();
    let only = l
        .body
        .iter()
        .all(|s| matches!(s, Stmt::Access(_) | Stmt::Barrier(_)))
        && accesses.len() == 3
        && accesses.iter().all(|x| x.array == wl.array);
    if !only {
        return Err(unsupported("the loop's body does more than add two cells"));
    }
    let Some(Expr::Bin(BinOp::Add, x, y)) = &wl.value else {
        return Err(unsupported("the written value is not a sum of two cells"));
    };
    let (Some(rx), Some(ry)) = (body_read(l, x), body_read(l, y)) else {
        return Err(unsupported("the written value is not a sum of two cells"));
    };
    // r1 reads the written cell, r2 the other.
    let (r1, r2) = if rx.index == wl.index {
        (rx, ry)
    } else {
        (ry, rx)
    };
    let tid = Var::new("threadIdx.x", VarKind::ThreadIdx(0));
    if w0.index != Expr::Var(tid.clone()) {
        return Err(unsupported(
            "the cells are not first written at `threadIdx.x`",
        ));
    }
    let counter = l.counter.clone();
    // `e` for the thread `t` of `c`'s block at iteration `k`.
    let inst = |e: &Expr, t: &Expr, k: &Expr| -> Expr {
        with_fixed(e, fixed).subst(&mut |v: &Var| match v.kind {
            VarKind::ThreadIdx(0) => Some(t.clone()),
            VarKind::ThreadIdx(_) => Some(Expr::Const(0)),
            VarKind::BlockIdx(_) => copy_var(v, c).map(Expr::Var),
            _ if *v == counter => Some(k.clone()),
            _ => None,
        })
    };
    // The writer of a cell at iteration `k`: `threadIdx.x`, or `M *
    // threadIdx.x` (the queries check it writes the cell).
    let inverse = |cell: &Expr, k: &Expr| -> Option<Expr> {
        let index = with_fixed(&wl.index, fixed);
        match &index {
            Expr::Var(v) if *v == tid => Some(cell.clone()),
            Expr::Bin(BinOp::Mul, m, t) | Expr::Bin(BinOp::Mul, t, m)
                if **t == Expr::Var(tid.clone()) && !m.mentions(&mut |v| *v == tid) =>
            {
                Some(Expr::bin(
                    BinOp::Div,
                    cell.clone(),
                    inst(m, &Expr::Const(0), k),
                ))
            }
            _ => None,
        }
    };
    let bd = |d: u8| with_fixed(&Expr::Var(crate::verify::smt::block_dim_var(d)), fixed);
    let n = bd(0);
    let (k, k1, cell, j) = (
        int_var("tree.k"),
        Expr::bin(BinOp::Add, int_var("tree.k"), Expr::Const(1)),
        int_var("tree.cell"),
        int_var(J),
    );
    let zero = Expr::Const(0);
    let stride = |k: &Expr| {
        Expr::bin(
            BinOp::Sub,
            inst(&r2.index, &zero, k),
            inst(&wl.index, &zero, k),
        )
    };
    let in_block = |x: &Expr| {
        Expr::and(
            Expr::bin(BinOp::Ge, x.clone(), zero.clone()),
            Expr::bin(BinOp::Lt, x.clone(), n.clone()),
        )
    };
    let guard = |k: &Expr| inst(&l.guard, &zero, k);
    type Template<'f> = (
        &'static str,
        Box<dyn Fn(&Expr, &Expr) -> Expr + 'f>,
        Box<dyn Fn(&Expr, &Expr, &Expr) -> Expr + 'f>,
    );
    let two = |s: Expr| Expr::bin(BinOp::Mul, Expr::Const(2), s);
    let templates: Vec<Template> = vec![
        (
            "cell c < 2s holds the elements j with j % 2s == c",
            Box::new(|k: &Expr, c: &Expr| {
                Expr::all([in_block(c), Expr::bin(BinOp::Lt, c.clone(), two(stride(k)))])
            }),
            Box::new(|k: &Expr, c: &Expr, j: &Expr| {
                Expr::and(
                    in_block(j),
                    Expr::eq(Expr::bin(BinOp::Rem, j.clone(), two(stride(k))), c.clone()),
                )
            }),
        ),
        (
            "cell c with c % s == 0 holds the elements c .. c + s - 1",
            Box::new(|k: &Expr, c: &Expr| {
                Expr::and(
                    in_block(c),
                    Expr::eq(Expr::bin(BinOp::Rem, c.clone(), stride(k)), zero.clone()),
                )
            }),
            Box::new(|k: &Expr, c: &Expr, j: &Expr| {
                Expr::all([
                    in_block(j),
                    Expr::bin(BinOp::Le, c.clone(), j.clone()),
                    Expr::bin(
                        BinOp::Lt,
                        j.clone(),
                        Expr::bin(BinOp::Add, c.clone(), stride(k)),
                    ),
                ])
            }),
        ),
    ];
    // The cell the result is read from, for the reading thread.
    let read_cell = super::rename(&r.index, c, fixed);
    let read_guard = super::rename(&r.guard, c, fixed);
    if read_cell
        .mentions(&mut |v| matches!(v.kind, VarKind::Counter { .. } | VarKind::Unknown { .. }))
    {
        return Err(unsupported("the result's cell is not a plain index"));
    }
    // A symbolic block size: the stride's arithmetic (`x % 2s` with `s`
    // a power of two of a symbolic size) is beyond the solver in one
    // query, so the obligations are checked for each power of two the
    // preconditions allow, once a query shows there is no other size.
    let sizes: Vec<Option<i64>> = if n.as_const().is_some() {
        vec![None]
    } else {
        let powers: Vec<i64> = (0..=MAX_LOG_BLOCK).map(|e| 1i64 << e).collect();
        let mut s = launch_of(a, b, fixed, &[c]);
        s.declare_vars(&n);
        s.declare_vars(&read_guard);
        s.asserts.push(enc_bool(&read_guard, false));
        let cases: Vec<String> = powers
            .iter()
            .map(|p| format!("(= {} {p})", enc(&n)))
            .collect();
        s.asserts.push(format!("(not (or {}))", cases.join(" ")));
        unsat(
            &s,
            options,
            &format!(
                "a block size other than a power of two up to {} (the tree's invariant is checked for each power of two: state `__requires((blockDim.x & (blockDim.x - 1)) == 0 && blockDim.x <= 1024)`)",
                1i64 << MAX_LOG_BLOCK
            ),
            queries,
        )
        .map_err(|f| Failure {
            needs: Some(power_of_two_block()),
            ..f
        })?;
        powers.into_iter().map(Some).collect()
    };
    let xor = |p: Expr, q: Expr| Expr::bin(BinOp::Ne, p, q);
    let wrote0 = |cell: &Expr| Expr::and(in_block(cell), inst(&w0.guard, cell, &zero));
    let mut tried = Vec::new();
    for (what, live, member) in &templates {
        // After iteration k, cell `cell` holds `target` (a set of j): the
        // failures of that claim.
        let post_bad = |k: &Expr, cell: &Expr, target: Expr| -> Option<Expr> {
            let t = inverse(cell, k)?;
            let gw = inst(&wl.guard, &t, k);
            let rd = inst(&r2.index, &t, k);
            let writer = Expr::all([
                in_block(&t),
                gw.clone(),
                Expr::eq(inst(&wl.index, &t, k), cell.clone()),
                Expr::eq(inst(&r1.index, &t, k), cell.clone()),
                inst(&r1.guard, &t, k),
                inst(&r2.guard, &t, k),
            ]);
            let (mc, mr) = (member(k, cell, &j), member(k, &rd, &j));
            Some(Expr::or(
                Expr::not(Expr::all([writer, live(k, cell), live(k, &rd)])),
                Expr::or(
                    Expr::and(mc.clone(), mr.clone()),
                    xor(target, Expr::or(mc, mr)),
                ),
            ))
        };
        let Some(step_bad) = post_bad(&k, &cell, member(&k1, &cell, &j)) else {
            return Err(unsupported(
                "the writer of a cell is not `threadIdx.x` or `M * threadIdx.x`",
            ));
        };
        let Some(exit_bad) = post_bad(&k, &read_cell, in_block(&j)) else {
            return Err(unsupported(
                "the writer of a cell is not `threadIdx.x` or `M * threadIdx.x`",
            ));
        };
        let base = [
            Expr::all([
                guard(&zero),
                live(&zero, &cell),
                Expr::or(
                    Expr::not(wrote0(&cell)),
                    xor(member(&zero, &cell, &j), Expr::eq(j.clone(), cell.clone())),
                ),
            ]),
            Expr::and(
                Expr::not(guard(&zero)),
                Expr::or(
                    Expr::not(wrote0(&read_cell)),
                    xor(Expr::eq(j.clone(), read_cell.clone()), in_block(&j)),
                ),
            ),
            Expr::bin(BinOp::Ne, bd(1), Expr::Const(1)),
            Expr::bin(BinOp::Ne, bd(2), Expr::Const(1)),
        ]
        .into_iter()
        .fold(Expr::fals(), Expr::or);
        let k_ok = Expr::bin(BinOp::Ge, k.clone(), zero.clone());
        // The loop runs at most MAX_ITERATIONS times (one query); the step
        // and the exit are then checked at each iteration `k` below it, a
        // constant (a stride of a symbolic `k` inside `%` is beyond the
        // solver in one query on a large block).
        let beyond = Expr::all([
            Expr::bin(BinOp::Ge, k.clone(), Expr::Const(MAX_ITERATIONS)),
            guard(&k),
        ]);
        let obligations = [
            ("bound", beyond),
            ("base", base),
            (
                "step",
                Expr::all([
                    k_ok.clone(),
                    guard(&k),
                    guard(&k1),
                    live(&k1, &cell),
                    step_bad,
                ]),
            ),
            (
                "exit",
                Expr::all([k_ok.clone(), guard(&k), Expr::not(guard(&k1)), exit_bad]),
            ),
        ];
        let mut failed = None;
        'obligations: for (name, bad) in obligations {
            let per_k: Vec<Option<i64>> = if matches!(name, "step" | "exit") {
                (0..MAX_ITERATIONS).map(Some).collect()
            } else {
                vec![None]
            };
            for size in &sizes {
                for at in &per_k {
                    // The iteration and the block size put in, constants
                    // fold: on a block of 2^e threads a halving loop runs e
                    // times, and an obligation whose loop condition folds
                    // to false at this iteration holds without a query
                    // (most of the 11 sizes x 16 iterations).
                    let bad = bad.subst(&mut |v: &Var| match (&k, &n) {
                        (Expr::Var(kv), _) if kv == v => at.map(Expr::Const),
                        (_, Expr::Var(nv)) if nv == v => size.map(Expr::Const),
                        _ => None,
                    });
                    if bad.is_false() {
                        continue;
                    }
                    let mut s = launch_of(a, b, fixed, &[c]);
                    let rg = read_guard.clone();
                    for e in [&rg, &bad] {
                        s.declare_vars(e);
                    }
                    s.asserts.push(enc_bool(&rg, false));
                    s.asserts.push(enc_bool(&bad, false));
                    let mut what = match name {
                        "bound" => format!(
                            "an iteration past the {MAX_ITERATIONS}th of the loop (checking the invariant `{what}`)"
                        ),
                        _ => format!("a case where the {name} of the invariant `{what}` fails"),
                    };
                    if let Some(i) = at {
                        what.push_str(&format!(" at iteration {i}"));
                    }
                    if let Some(size) = size {
                        s.asserts.push(format!("(= {} {size})", enc(&n)));
                        what.push_str(&format!(" with blockDim.x = {size}"));
                    }
                    if let Err(f) = unsat(&s, options, &what, queries) {
                        failed = Some(f.reason);
                        break 'obligations;
                    }
                }
            }
        }
        match failed {
            Some(why) => tried.push(why),
            None => {
                // Proved: the read cell holds the sum of the initial values
                // of cells 0 .. blockDim.x - 1 (each written by its thread).
                q.fresh += 1;
                let writer = Copy {
                    thread: format!("{}{}s{}", c.thread, en.version, q.fresh),
                    block: c.block.clone(),
                    iteration: None,
                };
                for d in 0..3u8 {
                    let v = Var::new(
                        format!("threadIdx.{}", crate::model::DIMS[d as usize]),
                        VarKind::ThreadIdx(d),
                    );
                    let x = Expr::Var(copy_var(&v, &writer).expect("a thread variable"));
                    q.declare_vars(&x);
                    let is = if d == 0 { enc(&j) } else { "0".into() };
                    q.asserts.push(format!("(= {} {is})", enc(&x)));
                }
                let Some(v0) = &w0.value else {
                    return Err(format!("the value `{}` writes is not modelled", w0.text).into());
                };
                let mut reads = Vec::new();
                let term = en.value(q, v0, &writer, 1, &mut reads)?;
                if !reads.is_empty() {
                    return Err(unsupported("the initial values read shared memory"));
                }
                let set = enc_bool(&in_block(&j), false);
                q.declare_vars(&in_block(&j));
                return Ok((set, term));
            }
        }
    }
    Err(unsupported(&format!(
        "no invariant checked ({})",
        tried.join("; ")
    )))
}
