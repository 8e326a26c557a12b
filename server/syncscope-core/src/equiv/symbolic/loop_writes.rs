//! Writes inside loops as sets of writes (a map, not a fold): the proof
//! treats a write in a loop as "some iteration `k` of the thread writes
//! `index(k)` with `value(k)`". That is the cell's final value only if no
//! other iteration of the same thread writes the same cell (other threads
//! are `check`'s race freedom), and iteration `k` runs only if the loop's
//! condition held at every earlier iteration. Two queries per write, each
//! unsat: the iterations' cells are disjoint, and each loop's condition is
//! monotone (once false, false at every later iteration).

use super::{enc, launch_of, unsat, Copy, Encoder, Failure, Fixed, Query};
use crate::model::{Access, BinOp, Expr, Kernel, Var};
use crate::options::Options;

/// The counters of the loops `ids` (`Loop::id`s) of the encoder's kernel,
/// as its version names them (`Encoder::counters`).
pub(super) fn counters(en: &Encoder, ids: &[usize]) -> Vec<Var> {
    en.shape
        .kernel
        .loops()
        .into_iter()
        .filter(|l| ids.contains(&l.id))
        .filter_map(|l| match en.counters(&Expr::Var(l.counter.clone())) {
            Expr::Var(v) => Some(v),
            _ => None,
        })
        .collect()
}

/// Checks the write `w` of the encoder's version a set of writes: for every
/// loop around it, its condition is monotone, and two different iterations
/// of one thread never write one cell. Nothing to check outside loops.
pub(super) fn check(
    en: &Encoder,
    w: &Access,
    kernels: (&Kernel, &Kernel),
    fixed: &Fixed,
    options: &Options,
    queries: &mut u32,
) -> Result<(), Failure> {
    let ids = en.shape.loops_of(w).to_vec();
    if ids.is_empty() {
        return Ok(());
    }
    let (a, b) = kernels;
    let loops: Vec<_> = en
        .shape
        .kernel
        .loops()
        .into_iter()
        .filter(|l| ids.contains(&l.id))
        .collect();
    for l in &loops {
        let c = Copy {
            thread: "m".into(),
            block: "m".into(),
            iteration: None,
        };
        let mut q = launch_of(a, b, fixed, &[&c]);
        let earlier = Var::new(format!("{}'", l.counter.name), l.counter.kind);
        let at_earlier = l
            .guard
            .subst(&mut |v: &Var| (*v == l.counter).then(|| Expr::Var(earlier.clone())));
        let what = format!("the condition of the loop `{}`", super::loop_name(l));
        let now = en.bool(&mut q, &l.guard, &c, &what)?;
        let before = en.bool(&mut q, &at_earlier, &c, &what)?;
        let k = en.plain(&mut q, &Expr::Var(l.counter.clone()), &c, &what)?;
        let k_before = en.plain(&mut q, &Expr::Var(earlier.clone()), &c, &what)?;
        q.asserts.push(format!(
            "(and (<= 0 {kb}) (< {kb} {k}) {now} (not {before}))",
            kb = enc(&k_before),
            k = enc(&k)
        ));
        unsat(
            &q,
            options,
            &format!(
                "an iteration of the loop `{}` that runs after one where its condition failed (`{}` writes inside it)",
                super::loop_name(l),
                w.text
            ),
            queries,
        )?;
    }
    let copy = |tag: &str| Copy {
        thread: "d".into(),
        block: "d".into(),
        iteration: Some(tag.into()),
    };
    let (c1, c2) = (copy("d1"), copy("d2"));
    let mut q: Query = launch_of(a, b, fixed, &[&c1]);
    let g1 = en.bool(&mut q, &w.guard, &c1, "a guard")?;
    let g2 = en.bool(&mut q, &w.guard, &c2, "a guard")?;
    let i1 = en.plain(&mut q, &w.index, &c1, "an index")?;
    let i2 = en.plain(&mut q, &w.index, &c2, "an index")?;
    q.asserts.extend([g1, g2]);
    super::assert_same_index(&mut q, &i1, &i2);
    let mut differ = Vec::new();
    for l in &loops {
        let counter = Expr::Var(l.counter.clone());
        let k1 = en.plain(&mut q, &counter, &c1, "a counter")?;
        let k2 = en.plain(&mut q, &counter, &c2, "a counter")?;
        differ.push(Expr::bin(BinOp::Ne, k1, k2));
    }
    let differ = differ
        .into_iter()
        .reduce(Expr::or)
        .unwrap_or_else(Expr::tru);
    q.asserts.push(crate::verify::smt::enc_bool(&differ, false));
    unsat(
        &q,
        options,
        &format!(
            "two iterations of one thread that write one cell with `{}` (the loop is not a map of disjoint cells)",
            w.text
        ),
        queries,
    )
}
