//! A tree reduction that keeps its partial sum in a register and stores it
//! back at every step (`s[t] = acc; ... for (h ...) if (t < h) s[t] = acc =
//! acc + s[t + h];` then `out = acc`): the register is the thread's own cell
//! of the shared array, so the kernel is the in-place tree `s[t] = s[t] +
//! s[t + h]` whose result is read from `s[t]` ([`super::assoc`] reads that
//! as a sum).
//!
//! Why that holds: when every write of the array is at `threadIdx.x` (one
//! statement before the loop that every thread of a one-dimensional block
//! runs, storing the register's start value, and one in the loop), cell
//! `t` changes only by thread `t`'s own writes. The loop changes the
//! register exactly when it writes the cell (the fold's step is `ite(c,
//! v, acc)` and the write stores `v` under a guard shown equal to `c` at
//! every iteration), so after the first write the register and the cell
//! hold the same value whenever thread `t` looks: a read of the cell
//! where the register is read gives what the register holds. Each
//! condition is a query that must be unsat; anything else (another write
//! of the array, the register read elsewhere, a use after the loop under
//! two guards) leaves the kernel as it is.

use super::{launch_of, rename, unsat, Copy, Fixed};
use crate::model::{Access, AccessKind, BinOp, Expr, Fold, Kernel, Stmt, Var, VarKind};
use crate::options::Options;
use crate::verify::smt::{block_dim_var, enc_bool};

/// The kernel with each register that mirrors its thread's cell read from
/// that cell (and the fold of the register dropped), with a note for each
/// candidate whose check failed (why it was left a register).
pub(super) fn mirrored(
    k: &Kernel,
    kernels: (&Kernel, &Kernel),
    fixed: &Fixed,
    options: &Options,
    queries: &mut u32,
) -> (Option<Kernel>, Vec<String>) {
    let mut out: Option<Kernel> = None;
    let mut notes = Vec::new();
    for f in &k.folds {
        let current = out.as_ref().unwrap_or(k);
        match mirror(current, f, kernels, fixed, options, queries) {
            Ok(Some(rewritten)) => out = Some(rewritten),
            Ok(None) => {}
            Err(why) => notes.push(why),
        }
    }
    (out, notes)
}

fn is_thread_x(e: &Expr) -> bool {
    matches!(e, Expr::Var(v) if v.kind == VarKind::ThreadIdx(0))
}

fn is_value_var(v: &Var) -> bool {
    matches!(v.kind, VarKind::Unknown { .. })
}

/// Every expression of a statement tree (guards, indices, values).
fn mentions_in(stmts: &[Stmt], v: &Var, skip: Option<usize>) -> bool {
    let mut found = false;
    crate::model::walk(stmts, &mut |s| match s {
        Stmt::Access(a) if Some(a.id) != skip => {
            for e in [Some(&a.guard), Some(&a.index), a.value.as_ref()]
                .into_iter()
                .flatten()
            {
                found |= e.mentions(&mut |u| u == v);
            }
        }
        Stmt::Barrier(b) => found |= b.guard.mentions(&mut |u| u == v),
        Stmt::Loop(l) => found |= l.guard.mentions(&mut |u| u == v),
        _ => {}
    });
    found
}

/// The rewrite of one fold, `Ok(None)` when it is no register stored back
/// to its thread's cell, `Err` when it looks like one but a check fails.
fn mirror(
    k: &Kernel,
    f: &Fold,
    (a, b): (&Kernel, &Kernel),
    fixed: &Fixed,
    options: &Options,
    queries: &mut u32,
) -> Result<Option<Kernel>, String> {
    let (carried, exit) = (&f.carried, &f.exit);
    if !is_value_var(carried) || !is_value_var(exit) {
        return Ok(None);
    }
    let Some(pos) = k
        .body
        .iter()
        .position(|s| matches!(s, Stmt::Loop(l) if l.id == f.loop_id))
    else {
        return Ok(None);
    };
    let Stmt::Loop(l) = &k.body[pos] else {
        return Ok(None);
    };
    // The one write in the loop that stores the register's next value.
    let stores: Vec<&Access> = l
        .body
        .iter()
        .filter_map(|s| match s {
            Stmt::Access(x)
                if x.kind == AccessKind::Write
                    && x.value
                        .as_ref()
                        .is_some_and(|v| v.mentions(&mut |u| u == carried)) =>
            {
                Some(x)
            }
            _ => None,
        })
        .collect();
    let [w] = stores[..] else { return Ok(None) };
    let Some(stored) = &w.value else {
        return Ok(None);
    };
    // The register changes exactly to what is stored, under one condition.
    let step_condition = match &f.next {
        next if next == stored => Expr::tru(),
        Expr::Ite(c, x, y) if **x == *stored && **y == Expr::Var(carried.clone()) => (**c).clone(),
        _ => return Ok(None),
    };
    let name = exit
        .name
        .split('@')
        .next()
        .unwrap_or(&exit.name)
        .to_string();
    let array = &k.arrays[w.array].name;
    let not_mirrored = |why: String| {
        format!("the register `{name}` is not read as the cell `{array}[threadIdx.x]` it is stored to: {why}")
    };
    if !is_thread_x(&w.index) {
        return Err(not_mirrored(format!(
            "`{}` is not stored at `threadIdx.x`",
            w.text
        )));
    }
    // Every write of the array: the store in the loop and one before it.
    let writes: Vec<&Access> = k
        .accesses()
        .into_iter()
        .filter(|x| x.kind.writes() && x.array == w.array)
        .collect();
    let first = k.body[..pos].iter().rev().find_map(|s| match s {
        Stmt::Access(x) if x.kind.writes() && x.array == w.array => Some(x),
        _ => None,
    });
    let Some(w0) = first.filter(|_| writes.len() == 2) else {
        return Err(not_mirrored(format!(
            "`{array}` is written by {} statement(s), not once before the loop and once in it",
            writes.len()
        )));
    };
    if !is_thread_x(&w0.index) || w0.value.as_ref() != Some(&f.init) {
        return Err(not_mirrored(format!(
            "`{}` before the loop does not store the register's start value at `threadIdx.x`",
            w0.text
        )));
    }
    // The register read nowhere else in the loop; its value after the loop
    // used by one statement, in what it writes.
    if mentions_in(&l.body, carried, Some(w.id)) || l.guard.mentions(&mut |u| u == carried) {
        return Err(not_mirrored(
            "the loop reads the register outside its store".into(),
        ));
    }
    let other_folds = k.folds.iter().filter(|g| !std::ptr::eq(*g, f)).any(|g| {
        [&g.init, &g.next]
            .iter()
            .any(|e| e.mentions(&mut |u| u == exit || u == carried))
    });
    let users: Vec<usize> = (0..k.body.len())
        .filter(|i| mentions_in(std::slice::from_ref(&k.body[*i]), exit, None))
        .collect();
    let use_at = match users[..] {
        [i] if i > pos => i,
        _ => {
            return Err(not_mirrored(
                "its value after the loop is not used by one statement after it".into(),
            ))
        }
    };
    let use_guard = match &k.body[use_at] {
        Stmt::Access(x)
            if !x.guard.mentions(&mut |u| u == exit) && !x.index.mentions(&mut |u| u == exit) =>
        {
            x.guard.clone()
        }
        _ => {
            return Err(not_mirrored(
                "its value after the loop is used other than as a value written".into(),
            ))
        }
    };
    if other_folds || k.assumptions.iter().any(|e| e.mentions(&mut |u| u == exit)) {
        return Err(not_mirrored("another loop accumulates it".into()));
    }
    // The checks: a one-dimensional block whose every thread runs the
    // first store, and the store in the loop under the step's condition at
    // every iteration that runs.
    let c = Copy {
        thread: "m".into(),
        block: "m".into(),
        iteration: None,
    };
    let counter = Expr::Var(l.counter.clone());
    let mut iteration = Expr::bin(BinOp::Ge, counter.clone(), Expr::Const(0));
    if matches!(l.counter.kind, VarKind::Counter { pow2: true }) {
        // The model's range of a power-of-two counter (`1 << k`).
        iteration = Expr::and(iteration, Expr::bin(BinOp::Lt, counter, Expr::Const(64)));
    }
    let bd = |d: u8| Expr::Var(block_dim_var(d));
    let one_dimensional = Expr::or(
        Expr::bin(BinOp::Ne, bd(1), Expr::Const(1)),
        Expr::bin(BinOp::Ne, bd(2), Expr::Const(1)),
    );
    let checks = [
        (
            Expr::or(one_dimensional, Expr::not(w0.guard.clone())),
            format!(
                "a thread that does not run `{}` (or a block of more than one dimension)",
                w0.text
            ),
        ),
        (
            Expr::all([
                iteration,
                l.guard.clone(),
                Expr::or(
                    Expr::and(step_condition.clone(), Expr::not(w.guard.clone())),
                    Expr::and(Expr::not(step_condition), w.guard.clone()),
                ),
            ]),
            format!(
                "an iteration where `{name}` changes and `{}` is not written, or the other way round",
                w.text
            ),
        ),
    ];
    for (bad, what) in checks {
        let mut q = launch_of(a, b, fixed, &[&c]);
        let bad = rename(&bad, &c, fixed);
        if bad.mentions(&mut |u| is_value_var(u)) {
            return Err(not_mirrored(format!(
                "{what} depends on a value read from memory"
            )));
        }
        q.declare_vars(&bad);
        q.asserts.push(enc_bool(&bad, false));
        unsat(&q, options, &what, queries).map_err(|e| not_mirrored(e.reason))?;
    }
    // The rewrite: the register read from its cell where the loop reads it
    // (before the store) and where its value after the loop is used.
    let mut next_id = k.accesses().iter().map(|x| x.id).max().unwrap_or(0) + 1;
    let mut read = |guard: Expr, value: &Var, loops: Vec<usize>| {
        next_id += 1;
        Stmt::Access(Access {
            id: next_id,
            kind: AccessKind::Read,
            guard,
            text: format!("{} (the register `{name}`)", w.text),
            loops,
            value: Some(Expr::Var(value.clone())),
            ..w.clone()
        })
    };
    let in_loop = read(w.guard.clone(), carried, w.loops.clone());
    let after = read(use_guard, exit, Vec::new());
    let mut out = k.clone();
    out.folds.retain(|g| g != f);
    out.body.insert(use_at, after);
    if let Stmt::Loop(lm) = &mut out.body[pos] {
        let at = lm
            .body
            .iter()
            .position(|s| matches!(s, Stmt::Access(x) if x.id == w.id))
            .unwrap_or(0);
        lm.body.insert(at, in_loop);
    }
    Ok(Some(out))
}
