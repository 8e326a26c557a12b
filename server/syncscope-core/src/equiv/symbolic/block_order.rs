//! Blocks taken in another order: a kernel that uses its block index only
//! through block coordinates computed from it (a diagonal ordering,
//! `bx = (blockIdx.x + blockIdx.y) % gridDim.x; by = blockIdx.x`) is the
//! same kernel with `blockIdx` standing for those coordinates, when they
//! number the blocks of the grid once each.
//!
//! Why that holds: the proof compares race-free kernels without atomics,
//! grid-wide barriers or reads of the memory they write, so no block sees
//! what another does; global memory at the end is the union of what each
//! block writes, a function of its block index alone. If the map `f` from
//! the block index to the coordinates is a bijection of the grid, the
//! blocks `f(b)` are the blocks `b`, and the union is the same.
//!
//! Two queries per assignment of coordinates to grid dimensions, each
//! unsat: every block's coordinates lie in the grid, and two blocks never
//! share them (injective into a finite set of its own size: a bijection).
//! Anything the rewrite cannot account for (a block index outside the
//! coordinates, in a precondition, a grid-wide barrier) leaves the kernel
//! as it is.

use super::{enc, launch_of, rename, unsat, Copy, Fixed};
use crate::model::{BarrierKind, BinOp, Expr, Kernel, Stmt, Var, VarKind};
use crate::options::Options;
use crate::verify::smt::enc_bool;
use std::sync::Arc;

/// The kernel with its block coordinates as its block index; `None` when
/// it has none (or they are not shown to number the blocks once each: the
/// proof then goes on with the kernel as it is).
pub(super) fn renumbered(
    k: &Kernel,
    (a, b): (&Kernel, &Kernel),
    fixed: &Fixed,
    options: &Options,
    queries: &mut u32,
) -> Option<Kernel> {
    if k.assumptions.iter().any(mentions_block) {
        return None;
    }
    let mut grid_wide = false;
    crate::model::walk(&k.body, &mut |s| {
        grid_wide |= matches!(s, Stmt::Barrier(x) if x.kind == BarrierKind::Grid);
    });
    if grid_wide {
        return None;
    }
    let mut found: Vec<Expr> = Vec::new();
    for_each_expr(k, &mut |e| coordinates(e, &mut found));
    if found.iter().all(|c| matches!(c, Expr::Var(_))) {
        return None;
    }
    // One coordinate per block dimension they read.
    let mut dims: Vec<u8> = Vec::new();
    for c in &found {
        c.for_each_var(&mut |v| {
            if let VarKind::BlockIdx(d) = v.kind {
                if !dims.contains(&d) {
                    dims.push(d);
                }
            }
        });
    }
    dims.sort_unstable();
    if dims.len() != found.len() {
        return None;
    }
    for order in permutations(&dims) {
        if numbers_blocks_once(&found, &order, (a, b), fixed, options, queries) {
            let to = order.iter().map(|d| Expr::Var(block_var(*d)));
            let pairs: Vec<(Expr, Expr)> = found.iter().cloned().zip(to).collect();
            return Some(rewritten(k, &pairs));
        }
    }
    None
}

fn block_var(d: u8) -> Var {
    Var::new(
        format!("blockIdx.{}", crate::model::DIMS[d as usize]),
        VarKind::BlockIdx(d),
    )
}

fn mentions_block(e: &Expr) -> bool {
    e.mentions(&mut |v| matches!(v.kind, VarKind::BlockIdx(_)))
}

/// The same in every thread of a block: block indices, launch sizes,
/// parameters and constants.
fn of_block(e: &Expr) -> bool {
    !e.mentions(&mut |v| {
        !matches!(
            v.kind,
            VarKind::BlockIdx(_)
                | VarKind::BlockDim(_)
                | VarKind::GridDim(_)
                | VarKind::Param { .. }
        )
    })
}

/// The block coordinates in `e`: each largest part that depends on the
/// block index and nothing a thread has of its own, less a factor or an
/// addend the same in every block (`bx * 32 + 5` is the coordinate `bx`).
fn coordinates(e: &Expr, out: &mut Vec<Expr>) {
    if mentions_block(e) && of_block(e) {
        let c = core(e);
        if !out.contains(c) {
            out.push(c.clone());
        }
        return;
    }
    match e {
        Expr::Const(_) | Expr::Var(_) => {}
        Expr::Un(_, x) | Expr::Pow2(x) => coordinates(x, out),
        Expr::Bin(_, x, y) => {
            coordinates(x, out);
            coordinates(y, out);
        }
        Expr::Ite(c, x, y) => {
            coordinates(c, out);
            coordinates(x, out);
            coordinates(y, out);
        }
    }
}

fn core(e: &Expr) -> &Expr {
    match e {
        Expr::Bin(BinOp::Mul | BinOp::Add | BinOp::Sub, x, y) if !mentions_block(y) => core(x),
        Expr::Bin(BinOp::Mul | BinOp::Add, x, y) if !mentions_block(x) => core(y),
        _ => e,
    }
}

/// Every expression of the body and of the folds (what the proof reads).
fn for_each_expr(k: &Kernel, f: &mut impl FnMut(&Expr)) {
    crate::model::walk(&k.body, &mut |s| match s {
        Stmt::Access(a) => {
            f(&a.guard);
            f(&a.index);
            if let Some(v) = &a.value {
                f(v);
            }
        }
        Stmt::Barrier(b) => f(&b.guard),
        Stmt::Loop(l) => f(&l.guard),
        Stmt::LoopExit(g) => f(g),
        Stmt::If(..) => {}
    });
    for fold in &k.folds {
        f(&fold.init);
        f(&fold.next);
    }
}

/// Whether the coordinates, the `i`th taken as block dimension
/// `order[i]`, lie in the grid and differ between any two blocks.
fn numbers_blocks_once(
    found: &[Expr],
    order: &[u8],
    (a, b): (&Kernel, &Kernel),
    fixed: &Fixed,
    options: &Options,
    queries: &mut u32,
) -> bool {
    let copy = |n: &str| Copy {
        thread: n.into(),
        block: n.into(),
        iteration: None,
    };
    let (c1, c2) = (copy("o1"), copy("o2"));
    let grid = |d: u8| super::with_fixed(&Expr::Var(crate::verify::smt::grid_dim_var(d)), fixed);
    // In the grid.
    let mut q = launch_of(a, b, fixed, &[&c1]);
    let outside: Vec<Expr> = found
        .iter()
        .zip(order)
        .map(|(c, d)| {
            let x = rename(c, &c1, fixed);
            Expr::or(
                Expr::bin(BinOp::Lt, x.clone(), Expr::Const(0)),
                Expr::bin(BinOp::Ge, x, grid(*d)),
            )
        })
        .collect();
    let outside = outside.into_iter().fold(Expr::fals(), Expr::or);
    q.declare_vars(&outside);
    q.asserts.push(enc_bool(&outside, false));
    if unsat(&q, options, "block coordinates outside the grid", queries).is_err() {
        return false;
    }
    // Never the same for two blocks.
    let mut q = launch_of(a, b, fixed, &[&c1, &c2]);
    let mut differ = Vec::new();
    for d in order {
        let v = Expr::Var(block_var(*d));
        let (x, y) = (rename(&v, &c1, fixed), rename(&v, &c2, fixed));
        differ.push(Expr::bin(BinOp::Ne, x, y));
    }
    let differ = differ.into_iter().fold(Expr::fals(), Expr::or);
    q.declare_vars(&differ);
    q.asserts.push(enc_bool(&differ, false));
    for c in found {
        let (x, y) = (rename(c, &c1, fixed), rename(c, &c2, fixed));
        q.declare_vars(&x);
        q.declare_vars(&y);
        q.asserts.push(format!("(= {} {})", enc(&x), enc(&y)));
    }
    unsat(&q, options, "two blocks with the same coordinates", queries).is_ok()
}

fn permutations(dims: &[u8]) -> Vec<Vec<u8>> {
    if dims.len() <= 1 {
        return vec![dims.to_vec()];
    }
    let mut out = Vec::new();
    for (i, d) in dims.iter().enumerate() {
        let mut rest = dims.to_vec();
        rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, *d);
            out.push(p);
        }
    }
    out
}

/// `e` with each coordinate replaced by its block index.
fn replaced(e: &Expr, pairs: &[(Expr, Expr)]) -> Expr {
    if let Some((_, to)) = pairs.iter().find(|(from, _)| from == e) {
        return to.clone();
    }
    match e {
        Expr::Const(_) | Expr::Var(_) => e.clone(),
        Expr::Un(op, x) => Expr::un(*op, replaced(x, pairs)),
        Expr::Pow2(x) => Expr::Pow2(Arc::new(replaced(x, pairs))),
        Expr::Bin(op, x, y) => Expr::bin(*op, replaced(x, pairs), replaced(y, pairs)),
        Expr::Ite(c, x, y) => Expr::ite(replaced(c, pairs), replaced(x, pairs), replaced(y, pairs)),
    }
}

fn rewritten(k: &Kernel, pairs: &[(Expr, Expr)]) -> Kernel {
    fn stmts(body: &mut [Stmt], pairs: &[(Expr, Expr)]) {
        for s in body {
            match s {
                Stmt::Access(a) => {
                    a.guard = replaced(&a.guard, pairs);
                    a.index = replaced(&a.index, pairs);
                    a.value = a.value.as_ref().map(|v| replaced(v, pairs));
                }
                Stmt::Barrier(b) => b.guard = replaced(&b.guard, pairs),
                Stmt::Loop(l) => {
                    l.guard = replaced(&l.guard, pairs);
                    stmts(&mut l.body, pairs);
                }
                Stmt::LoopExit(g) => *g = replaced(g, pairs),
                Stmt::If(x, y) => {
                    stmts(x, pairs);
                    stmts(y, pairs);
                }
            }
        }
    }
    let mut k = k.clone();
    stmts(&mut k.body, pairs);
    for fold in &mut k.folds {
        fold.init = replaced(&fold.init, pairs);
        fold.next = replaced(&fold.next, pairs);
    }
    k
}
