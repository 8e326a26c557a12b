//! Products with a factor of few values, written as a case split over
//! that factor: `t * S` with `0 <= t < 4` (a thread index of a fixed
//! block size) becomes `ite(t == 0, 0, ite(t == 1, S, ite(t == 2, 2 * S,
//! 3 * S)))`, linear in `S`. Index arithmetic multiplies a run-time row
//! stride by thread indices and loop counters (`(row0 + threadIdx.z * 8) *
//! stride + i * (stride / 2)`); Z3's nonlinear core decides such race
//! queries only after millions of resource units, while each case of the
//! split is linear (a tile of eight rows: 0.14 million units where the
//! products took 3.9 million).
//!
//! Every rewrite is an identity over the integers:
//! - a thread index `0 <= t < blockDim` of a fixed block size, or a block
//!   index of a fixed grid size: the query itself asserts those bounds
//!   (`smt::build_query`), so the last case stands for the last value;
//! - a loop counter: the cases are the values below a constant bound the
//!   query compares it with (`i < 8`), and the last case is the product
//!   itself (`ite(i == 7, 7 * S, i * S)`), so the split holds whatever
//!   the counter's range.
//!
//! A sum with such a factor is first multiplied out (`(b * 32 + t * 8) * S
//! == b * 32 * S + t * 8 * S`). Mathematical integers only: the caller
//! does not use it under `--bitvector`. Must not decide anything: the
//! rewritten query goes to Z3 like the original.

use super::smt::LaunchEnv;
use crate::model::{BinOp, Expr, Var, VarKind};
use std::collections::{BTreeSet, HashMap};

/// At most this many values per split factor (each is one case).
const MAX_CASES: i64 = 16;
/// At most this many cases in all per query (the text grows with each; a
/// split inside a split's cases multiplies them).
const MAX_CASES_PER_QUERY: usize = 2048;
/// At most this many cases in all in a query under the small-values
/// restriction ([`small_values_restriction`], split by
/// [`split_small_factors_up_to`]): there every parameter of a product is a
/// split factor, and a group query repeats each index and written value
/// per access instance and thread (16 instances of a neighbour stencil
/// with a written value divided by `frame + 1`: 14,528 cases, 1.3 MB of
/// text, which Z3 answers in about 0.5 million units). The restricted
/// query is asked under a small resource limit only, so its size costs
/// the parse, not an unbounded search.
pub(crate) const MAX_RESTRICTED_CASES: usize = 1 << 15;

/// `assertions` with every product that has a factor of few values split
/// over that factor; `None` when no product has one (the query is kept as
/// it is, text and all).
pub(crate) fn split_small_factors(assertions: &[Expr], env: &LaunchEnv) -> Option<Vec<Expr>> {
    split_small_factors_up_to(assertions, env, MAX_CASES_PER_QUERY)
}

/// [`split_small_factors`] with at most `max_cases` cases in all.
pub(crate) fn split_small_factors_up_to(
    assertions: &[Expr],
    env: &LaunchEnv,
    max_cases: usize,
) -> Option<Vec<Expr>> {
    if !assertions.iter().any(Expr::is_nonlinear) {
        return None;
    }
    let mut splitter = Splitter {
        env,
        counter_bounds: counter_bounds(assertions),
        top_ranges: top_level_ranges(assertions),
        memo: HashMap::new(),
        cases: 0,
        max_cases,
    };
    let out: Vec<Expr> = assertions.iter().map(|a| splitter.rewrite(a)).collect();
    (splitter.cases > 0).then_some(out)
}

/// The values a factor takes, `lo..lo + n`, and whether the query's own
/// bounds hold it there (else the last case is the product itself).
#[derive(Clone, Copy)]
struct Range {
    lo: i64,
    n: i64,
    bounded: bool,
}

struct Splitter<'e> {
    env: &'e LaunchEnv,
    /// The least constant each loop counter is compared below (`i < 8`).
    counter_bounds: HashMap<Var, i64>,
    /// Parameters and counters the query itself holds in `lo..lo + n`
    /// (top-level assertions `v >= lo` and `v < lo + n`): the last case
    /// stands for the last value, as for a thread index.
    top_ranges: HashMap<Var, (i64, i64)>,
    /// Rewritten shared nodes by the address of their `Arc` (nodes of the
    /// query, alive for the whole rewrite; never a temporary's address,
    /// which a later temporary may reuse): shared subexpressions once.
    memo: HashMap<usize, Expr>,
    /// Cases written so far, and at most how many (see
    /// [`MAX_CASES_PER_QUERY`]).
    cases: usize,
    max_cases: usize,
}

impl Splitter<'_> {
    fn range(&self, e: &Expr) -> Option<Range> {
        if let Some(r) = self.quotient_range(e) {
            return Some(r);
        }
        let Expr::Var(v) = e else {
            return None;
        };
        // One value is no case split (and would drop the variable).
        let within = |lo: i64, n: i64| {
            (2..=MAX_CASES).contains(&n).then_some(Range {
                lo,
                n,
                bounded: true,
            })
        };
        let fixed = |n: i64| within(0, n);
        if let Some(&(lo, n)) = self.top_ranges.get(v) {
            return within(lo, n);
        }
        match v.kind {
            VarKind::ThreadIdx(d) => fixed(self.env.fixed(VarKind::BlockDim(d))?),
            VarKind::BlockIdx(d) => fixed(self.env.fixed(VarKind::GridDim(d))?),
            VarKind::Counter { .. } => {
                let n = *self.counter_bounds.get(v)?;
                (2..=MAX_CASES).contains(&n).then_some(Range {
                    lo: 0,
                    n,
                    bounded: false,
                })
            }
            _ => None,
        }
    }

    /// The values of `v >> c` (SMT's floor division by `2^c`), or of `v /
    /// c` for a `v` that is never negative, where the query holds `v` in
    /// few values (`(pitch >> 2) * row` with `pitch` in `0..16`): every
    /// model has the quotient in the range the bounds of `v` give, so the
    /// last case stands for the last value.
    fn quotient_range(&self, e: &Expr) -> Option<Range> {
        let (v, divisor) = match e {
            Expr::Bin(BinOp::Shr, v, c) => {
                (v, 1i64.checked_shl(u32::try_from(c.as_const()?).ok()?)?)
            }
            Expr::Bin(BinOp::Div, v, c) => (v, c.as_const().filter(|c| *c > 0)?),
            _ => return None,
        };
        let Expr::Var(v) = &**v else {
            return None;
        };
        let &(lo, n) = self.top_ranges.get(v)?;
        let floor = matches!(e, Expr::Bin(BinOp::Shr, ..));
        if !floor && lo < 0 {
            // C's division truncates: below 0 it is no floor.
            return None;
        }
        let (first, last) = (lo.div_euclid(divisor), (lo + n - 1).div_euclid(divisor));
        let n = last - first + 1;
        (2..=MAX_CASES).contains(&n).then_some(Range {
            lo: first,
            n,
            bounded: true,
        })
    }

    fn has_small_factor(&self, e: &Expr) -> bool {
        e.any_node(&mut |x| self.range(x).is_some())
    }

    /// [`Self::rewrite`] of a node of the query, once per node.
    fn rewrite_shared(&mut self, e: &std::sync::Arc<Expr>) -> Expr {
        let key = std::sync::Arc::as_ptr(e) as usize;
        if let Some(done) = self.memo.get(&key) {
            return done.clone();
        }
        let out = self.rewrite(e);
        self.memo.insert(key, out.clone());
        out
    }

    fn rewrite(&mut self, e: &Expr) -> Expr {
        match e {
            Expr::Const(_) | Expr::Var(_) => e.clone(),
            Expr::Bin(BinOp::Mul, ..) => {
                let mut fs = Vec::new();
                factors(e, &mut fs);
                if fs.iter().filter(|f| f.as_const().is_none()).count() >= 2 {
                    self.product(fs)
                } else {
                    self.rebuild(e)
                }
            }
            _ => self.rebuild(e),
        }
    }

    /// `e` with its operands rewritten, its own operation kept.
    fn rebuild(&mut self, e: &Expr) -> Expr {
        use std::sync::Arc;
        match e {
            Expr::Const(_) | Expr::Var(_) => e.clone(),
            Expr::Un(op, a) => Expr::Un(*op, Arc::new(self.rewrite_shared(a))),
            Expr::Pow2(a) => Expr::Pow2(Arc::new(self.rewrite_shared(a))),
            Expr::Bin(op, a, b) => Expr::Bin(
                *op,
                Arc::new(self.rewrite_shared(a)),
                Arc::new(self.rewrite_shared(b)),
            ),
            Expr::Ite(c, a, b) => Expr::Ite(
                Arc::new(self.rewrite_shared(c)),
                Arc::new(self.rewrite_shared(a)),
                Arc::new(self.rewrite_shared(b)),
            ),
        }
    }

    /// The product of `fs` (flattened factors): split over a factor of few
    /// values, multiplied out over a sum that has one, or kept.
    fn product(&mut self, fs: Vec<Expr>) -> Expr {
        let mut flat = Vec::new();
        for f in &fs {
            factors(f, &mut flat);
        }
        let fs = flat;
        let keep = |s: &mut Self, fs: &[Expr]| {
            fs.iter()
                .map(|f| s.rewrite(f))
                .reduce(Expr::mul)
                .unwrap_or(Expr::Const(1))
        };
        if fs.iter().filter(|f| f.as_const().is_none()).count() < 2 {
            return keep(self, &fs);
        }
        if let Some((at, range)) = fs
            .iter()
            .enumerate()
            .find_map(|(i, f)| Some((i, self.range(f)?)))
            .filter(|(_, r)| self.cases + r.n as usize <= self.max_cases)
        {
            self.cases += range.n as usize;
            let v = fs[at].clone();
            let others: Vec<Expr> = fs
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != at)
                .map(|(_, f)| f.clone())
                .collect();
            let rest = self.product(others);
            let case = |k: i64| Expr::mul(Expr::Const(k), rest.clone());
            let end = range.lo + range.n;
            let (mut acc, below) = if range.bounded {
                (case(end - 1), end - 1)
            } else {
                (Expr::mul(v.clone(), rest.clone()), end)
            };
            for k in (range.lo..below).rev() {
                acc = Expr::ite(Expr::eq(v.clone(), Expr::Const(k)), case(k), acc);
            }
            return acc;
        }
        let sum_at = fs.iter().position(|f| {
            matches!(f, Expr::Bin(BinOp::Add | BinOp::Sub, ..)) && self.has_small_factor(f)
        });
        if let Some(at) = sum_at {
            let mut terms = Vec::new();
            signed_terms(&fs[at], false, &mut terms);
            let mut acc: Option<Expr> = None;
            for (negated, t) in terms {
                let mut part: Vec<Expr> = fs
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != at)
                    .map(|(_, f)| f.clone())
                    .collect();
                part.push(t);
                let p = self.product(part);
                acc = Some(match (acc, negated) {
                    (None, false) => p,
                    (None, true) => Expr::bin(BinOp::Sub, Expr::Const(0), p),
                    (Some(a), false) => Expr::add(a, p),
                    (Some(a), true) => Expr::bin(BinOp::Sub, a, p),
                });
            }
            return acc.unwrap_or(Expr::Const(0));
        }
        keep(self, &fs)
    }
}

/// The factors of a product tree. A left shift by a constant is a product
/// with its power of two (`(y << 1) * pitch` is `y * 2 * pitch`): the
/// query's encoding in integer mode, the only mode of the split.
fn factors(e: &Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::Bin(BinOp::Mul, a, b) => {
            factors(a, out);
            factors(b, out);
        }
        Expr::Bin(BinOp::Shl, a, c) if c.as_const().is_some_and(|c| (0..63).contains(&c)) => {
            factors(a, out);
            out.push(Expr::Const(1i64 << c.as_const().unwrap_or(0)));
        }
        _ => out.push(e.clone()),
    }
}

/// The terms of a sum tree, each with whether it is subtracted.
fn signed_terms(e: &Expr, negated: bool, out: &mut Vec<(bool, Expr)>) {
    match e {
        Expr::Bin(BinOp::Add, a, b) => {
            signed_terms(a, negated, out);
            signed_terms(b, negated, out);
        }
        Expr::Bin(BinOp::Sub, a, b) => {
            signed_terms(a, negated, out);
            signed_terms(b, !negated, out);
        }
        _ => out.push((negated, e.clone())),
    }
}

/// How many values (`lo..lo + SMALL_VALUES`, from the least value the
/// query allows, at least 0) the small-values shortcut of a race
/// query gives each parameter or loop counter that multiplies another
/// run-time value ([`small_values_restriction`]): one case each.
pub(crate) const SMALL_VALUES: i64 = MAX_CASES;

/// A race query's shortcut to a witness where its products of run-time
/// values (`(y + r) * w`, a row stride times a loop counter) or its
/// divisions by them (`i / width`, `v / (frame + 1)`) stay nonlinear at
/// the launch `env`: the query with every loop counter in such a product
/// or divisor, and every parameter in one, held in `SMALL_VALUES` values
/// from 0 (a divisor's from 1; a parameter the query pins is no such
/// factor), which makes each
/// product a case split ([`split_small_factors`]) and the query linear. Z3's
/// nonlinear core searches such queries for millions of resource units
/// where the split answers in a fraction (the collision of two image rows
/// needs a row width, any small one). The restriction only adds
/// constraints, so a model of it is a model of the query; its `unsat` says
/// nothing about the query (the caller asks the query itself then). Asked
/// through `smt::solve_linear_split`, which gives up at once where the
/// split leaves it nonlinear. `None` when the query has no such product or
/// division: nothing to gain.
///
/// A parameter held so is also retyped to its small range (the same name,
/// so the same SMT constant and the same witness value): a parameter that
/// is itself a divisor to `1..SMALL_VALUES` (a division by zero is no
/// execution), any other to `0..SMALL_VALUES`. By their types, divisors
/// such as `width` and `frame + 1` are then positive, which makes their
/// divisions digits (`i == q * width + r`, see `smt::solve_linear_split`)
/// that the split makes linear; as SMT's `div` by a run-time value the
/// query would stay nonlinear whatever its bounds.
#[cfg(test)]
pub(crate) fn small_values_restriction(assertions: &[Expr], env: &LaunchEnv) -> Option<Vec<Expr>> {
    small_values_restriction_in(assertions, env, SMALL_VALUES, 0)
}

/// How many values the narrow try of the small-values shortcut gives each
/// held variable ([`small_values_restriction_in`]): a loop counter's first
/// two iterations, a width of 0 or 1 (a divisor's 1 or 2). Most races of
/// image stencils and strided loops are there (a pixel's left neighbour
/// with rows of one pixel; the first two iterations of a grid-stride
/// loop), and the split of two values per factor is a query a few times
/// smaller than the sixteen-value one, which NVIDIA's Mandelbrot
/// anti-aliasing kernels (a divisor, a stride and a width per access of a
/// 16-access group) ran out of its allowance on.
pub(crate) const NARROW_VALUES: i64 = 2;

/// [`small_values_restriction`] with each held variable in `values`
/// values from `from` at least (a divisor from 1 at least, a parameter
/// from the least its type allows). One value is a pin, stated `v ==
/// start` (which `pinned` folds into every product and divisor of a
/// parameter: the bit-vector try of `witness::solve_small_values`, where
/// a divisor of 1 takes a 32-bit divider circuit out of the query, and a
/// pin at 2 keeps a divisor such as `DX / 2` from being zero, which no
/// execution divides by); more are a window the split makes cases of.
/// Only more constraints for any window: a model is a model of the query.
pub(crate) fn small_values_restriction_in(
    assertions: &[Expr],
    env: &LaunchEnv,
    values: i64,
    from: i64,
) -> Option<Vec<Expr>> {
    use std::collections::BTreeMap;
    let values = values.clamp(1, SMALL_VALUES);
    let fold = |a: &Expr| a.subst(&mut |v: &Var| env.fixed(v.kind).map(Expr::Const));
    let folded: Vec<Expr> = assertions.iter().map(fold).collect();
    // A parameter the query pins (`lb == 16`) is a constant, not a factor
    // to hold small (`smt` folds it likewise before the split).
    let folded = super::pinned::fold_pinned_parameters(&folded);
    if !folded.iter().any(Expr::is_nonlinear) {
        return None;
    }
    // The loop counters and parameters of products and divisors; a
    // parameter that is a whole divisor starts at 1.
    let held = |k: VarKind| matches!(k, VarKind::Counter { .. } | VarKind::Param { .. });
    let (mut chosen, whole_divisors) = divisor_variables(&folded, held);
    chosen.extend(product_variables(&folded, held));
    let divisors: BTreeSet<&Var> = whole_divisors
        .iter()
        .filter(|v| matches!(v.kind, VarKind::Param { .. }))
        .collect();
    if chosen.is_empty() {
        return None;
    }
    // Each value's window starts at 0 (a divisor's at 1, a parameter's at
    // the least its type allows). Starting at the least value the query's
    // own bounds allow (`pitch >= 4096`) made the restricted queries of
    // NVIDIA's Mandelbrot kernels run out of their allowance; a query whose
    // bounds exclude the window finds its model at the kernel's own launch
    // instead (`witness.rs::solve_small_values`).
    let window = |v: &Var| {
        let least = match v.kind {
            VarKind::Param { lo, .. } => lo,
            _ => 0,
        };
        let least = if divisors.contains(v) {
            least.max(1)
        } else {
            least
        };
        let start = least.max(from.max(0));
        (start, start.saturating_add(values))
    };
    // Each chosen parameter typed to its window (where the range its type
    // allows meets it; else the bounds below leave the restriction
    // unsatisfiable, which it then is).
    let retyped: BTreeMap<Var, Var> = chosen
        .iter()
        .filter_map(|v| {
            let VarKind::Param { lo, hi } = v.kind else {
                return None;
            };
            let (start, end) = window(v);
            let (lo, hi) = (lo.max(start), hi.min(end - 1));
            (lo <= hi).then(|| {
                (
                    v.clone(),
                    Var::new(v.name.clone(), VarKind::Param { lo, hi }),
                )
            })
        })
        .collect();
    let mut restricted: Vec<Expr> = if retyped.is_empty() {
        assertions.to_vec()
    } else {
        assertions
            .iter()
            .map(|a| a.subst(&mut |v: &Var| retyped.get(v).cloned().map(Expr::Var)))
            .collect()
    };
    for v in chosen {
        let (start, end) = window(&v);
        let x = Expr::Var(retyped.get(&v).cloned().unwrap_or(v));
        if end - start == 1 {
            restricted.push(Expr::eq(x, Expr::Const(start)));
        } else {
            restricted.push(Expr::bin(BinOp::Ge, x.clone(), Expr::Const(start)));
            restricted.push(Expr::bin(BinOp::Lt, x, Expr::Const(end)));
        }
    }
    Some(restricted)
}

/// Whether the pins of `assertions` (top-level `v == c`, counters
/// included: a restriction of [`small_values_restriction_in`] with one
/// value per variable) take any of its nonlinear operations away
/// (products, divisions and shifts of run-time values, with the launch
/// sizes `env` fixes folded). Where they take none, the pinned query is
/// as hard as the query: a sorting network's shifts by loop counters'
/// powers of two, whose race-free queries each spent the pinned try's
/// whole allowance. (A count, not linearity: NVIDIA's FFT
/// post-processing keeps shifts by an unknown `__ffs` after its pins,
/// 64 such operations down to 40, and its pinned race query is still
/// solved in tens of thousands of units where the query took millions.)
pub(crate) fn pins_take_nonlinearity_away(assertions: &[Expr], env: &LaunchEnv) -> bool {
    let pins = super::pinned::pinned_variables(assertions, |_| true);
    let count = |with_pins: bool| -> usize {
        assertions
            .iter()
            .map(|a| {
                let mut n = 0;
                a.subst(&mut |v: &Var| {
                    env.fixed(v.kind)
                        .or_else(|| with_pins.then(|| pins.get(v).copied()).flatten())
                        .map(Expr::Const)
                })
                .any_node(&mut |x| {
                    n += x.is_nonlinear_op() as usize;
                    false
                });
                n
            })
            .sum()
    };
    count(true) < count(false)
}

/// The variables of the kinds `wanted` accepts in a divisor (of `/` or
/// `%`) that is not a constant anywhere in `query`, and those that are a
/// whole divisor (`i / width`: `width`, which must then be at least 1).
fn divisor_variables(
    query: &[Expr],
    wanted: impl Fn(VarKind) -> bool,
) -> (BTreeSet<Var>, BTreeSet<Var>) {
    let (mut within, mut whole) = (BTreeSet::new(), BTreeSet::new());
    for a in query {
        a.any_node(&mut |e| {
            if let Expr::Bin(BinOp::Div | BinOp::Rem, _, d) = e {
                if d.as_const().is_none() {
                    d.for_each_var(&mut |v| {
                        if wanted(v.kind) {
                            within.insert(v.clone());
                        }
                    });
                    if let Expr::Var(v) = &**d {
                        if wanted(v.kind) {
                            whole.insert(v.clone());
                        }
                    }
                }
            }
            false
        });
    }
    (within, whole)
}

/// The variables of the kinds `wanted` accepts in a factor of a product
/// of two run-time values anywhere in `query`.
fn product_variables(query: &[Expr], wanted: impl Fn(VarKind) -> bool) -> BTreeSet<Var> {
    let mut out = BTreeSet::new();
    for a in query {
        a.any_node(&mut |e| {
            if let Expr::Bin(BinOp::Mul, x, y) = e {
                if x.as_const().is_none() && y.as_const().is_none() {
                    for f in [x, y] {
                        f.for_each_var(&mut |v| {
                            if wanted(v.kind) {
                                out.insert(v.clone());
                            }
                        });
                    }
                }
            }
            false
        });
    }
    out
}

/// The variables (parameters, counters, unknowns) a query holds in
/// `lo..lo + n` by top-level assertions `v >= lo` (or `v > lo - 1`) and
/// `v < lo + n` (or `v <= lo + n - 1`), or conjunctions of them, with the
/// greatest such `lo` and the least such end, as `(lo, n)`.
fn top_level_ranges(assertions: &[Expr]) -> HashMap<Var, (i64, i64)> {
    let mut parts = Vec::new();
    for a in assertions {
        conjuncts(a, &mut parts);
    }
    let var = |e: &Expr| match e {
        Expr::Var(v)
            if matches!(
                v.kind,
                VarKind::Param { .. }
                    | VarKind::Counter { .. }
                    | VarKind::Unknown { .. }
                    | VarKind::BlockIdx(_)
            ) =>
        {
            Some(v.clone())
        }
        _ => None,
    };
    let lower = lower_bounds(&parts, &var);
    let mut end: HashMap<Var, i64> = HashMap::new();
    for p in parts {
        let bound = match p {
            Expr::Bin(BinOp::Lt, x, c) => var(x).zip(c.as_const()),
            Expr::Bin(BinOp::Le, x, c) => var(x).zip(c.as_const().and_then(|c| c.checked_add(1))),
            _ => None,
        };
        if let Some((v, n)) = bound {
            let slot = end.entry(v).or_insert(n);
            *slot = (*slot).min(n);
        }
    }
    end.into_iter()
        .filter_map(|(v, end)| {
            let lo = *lower.get(&v)?;
            Some((v, (lo, end.checked_sub(lo)?)))
        })
        .collect()
}

/// The greatest constant lower bound (`v >= c`, `v > c`) the top-level
/// conjuncts `parts` state for each variable `var` accepts.
fn lower_bounds(parts: &[&Expr], var: &dyn Fn(&Expr) -> Option<Var>) -> HashMap<Var, i64> {
    let mut out: HashMap<Var, i64> = HashMap::new();
    for p in parts {
        let bound = match p {
            Expr::Bin(BinOp::Ge, x, c) => var(x).zip(c.as_const()),
            Expr::Bin(BinOp::Gt, x, c) => var(x).zip(c.as_const().and_then(|c| c.checked_add(1))),
            _ => None,
        };
        if let Some((v, lo)) = bound {
            let slot = out.entry(v).or_insert(lo);
            *slot = (*slot).max(lo);
        }
    }
    out
}

fn conjuncts<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    match e {
        Expr::Bin(BinOp::And, a, b) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        _ => out.push(e),
    }
}

/// The least constant bound `i < c` (or `i <= c - 1`) the query compares
/// each loop counter with, anywhere in it (a guard of one instance is
/// enough: the split is exact whatever the bound).
fn counter_bounds(assertions: &[Expr]) -> HashMap<Var, i64> {
    let mut out: HashMap<Var, i64> = HashMap::new();
    for a in assertions {
        a.any_node(&mut |e| {
            let found = match e {
                Expr::Bin(BinOp::Lt, x, c) => Some((x, c.as_const())),
                Expr::Bin(BinOp::Le, x, c) => {
                    Some((x, c.as_const().and_then(|c| c.checked_add(1))))
                }
                _ => None,
            };
            if let Some((x, Some(n))) = found {
                if let Expr::Var(v) = &**x {
                    if matches!(v.kind, VarKind::Counter { .. }) {
                        let slot = out.entry(v.clone()).or_insert(n);
                        *slot = (*slot).min(n);
                    }
                }
            }
            false
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::replay::eval_expr;

    fn env(block: [u32; 3]) -> LaunchEnv {
        LaunchEnv {
            block_dim: Some(block),
            grid_dim: None,
            block_used: [true; 3],
            grid_used: [true; 3],
            max_threads: None,
            bitvector: false,
        }
    }

    fn var(name: &str, kind: VarKind) -> Expr {
        Expr::Var(Var::new(name, kind))
    }

    /// The split is the product for every value of its variables, inside
    /// the factor's range and (for a counter) outside it.
    #[test]
    fn a_split_product_equals_the_product_for_every_value() {
        let t = var("threadIdx.z#1", VarKind::ThreadIdx(2));
        let i = var("i#1", VarKind::Counter { pow2: false });
        let s = var("S", VarKind::Param { lo: -100, hi: 100 });
        let b = var("blockIdx.y", VarKind::BlockIdx(1));
        // (b * 32 + t * 8) * S + i * (S / 2), with `i < 8` somewhere.
        let index = Expr::add(
            Expr::mul(
                Expr::add(
                    Expr::mul(b.clone(), Expr::Const(32)),
                    Expr::mul(t.clone(), Expr::Const(8)),
                ),
                s.clone(),
            ),
            Expr::mul(i.clone(), Expr::bin(BinOp::Div, s.clone(), Expr::Const(2))),
        );
        let guard = Expr::bin(BinOp::Lt, i.clone(), Expr::Const(8));
        let query = [guard, index.clone()];
        let split = split_small_factors(&query, &env([8, 4, 4])).expect("split");
        assert!(
            split[1].is_nonlinear(),
            "b * S and the counter's last case stay"
        );
        for tv in 0..4 {
            for iv in 0..12 {
                for sv in [-7, 0, 33, 64] {
                    let look = |v: &Var| match &*v.name {
                        "threadIdx.z#1" => Some(tv),
                        "i#1" => Some(iv),
                        "S" => Some(sv),
                        "blockIdx.y" => Some(3),
                        _ => None,
                    };
                    assert_eq!(
                        eval_expr(&split[1], &look, false),
                        eval_expr(&index, &look, false),
                        "t = {tv}, i = {iv}, S = {sv}"
                    );
                }
            }
        }
    }

    /// Rows of a run-time width times a loop row: the restriction holds
    /// each parameter and counter of the product in `0..SMALL_VALUES`,
    /// keeps the query's own assertions, and its split is linear; a
    /// linear query gets none.
    #[test]
    fn the_small_values_restriction_makes_row_products_linear() {
        let y = var("y#1", VarKind::Counter { pow2: false });
        let r = var(
            "r",
            VarKind::Param {
                lo: i32::MIN as i64,
                hi: i32::MAX as i64,
            },
        );
        let w = var(
            "w",
            VarKind::Param {
                lo: i32::MIN as i64,
                hi: i32::MAX as i64,
            },
        );
        let t = var("threadIdx.x#1", VarKind::ThreadIdx(0));
        let index = Expr::add(
            t.clone(),
            Expr::mul(Expr::add(y.clone(), r.clone()), w.clone()),
        );
        let query = [Expr::eq(var("index", VarKind::Shared), index)];
        let restricted = small_values_restriction(&query, &env([64, 1, 1])).expect("restricted");
        // The query's own assertion, its parameters retyped to the small
        // range (same names: the same SMT constants and witness values).
        let small = VarKind::Param { lo: 0, hi: 15 };
        let retyped = query[0].subst(&mut |v: &Var| {
            matches!(v.kind, VarKind::Param { .. })
                .then(|| Expr::Var(Var::new(v.name.clone(), small)))
        });
        assert_eq!(restricted[0], retyped);
        assert_eq!(restricted.len(), 1 + 2 * 3, "w, r and y bounded");
        let split = split_small_factors(&restricted, &env([64, 1, 1])).expect("split");
        assert!(!split.iter().any(Expr::is_nonlinear));
        let linear = [Expr::eq(var("index", VarKind::Shared), Expr::add(t, w))];
        assert!(small_values_restriction(&linear, &env([64, 1, 1])).is_none());
    }

    /// The narrow window holds each factor in two values (a divisor in
    /// `1..3`, any other in `0..2`): fewer cases than the wide one; a
    /// window of one value pins each (`w == 1`, `h == 0`).
    #[test]
    fn the_narrow_window_holds_each_factor_in_two_values() {
        let any = VarKind::Param {
            lo: i32::MIN as i64,
            hi: i32::MAX as i64,
        };
        let (i, w, h) = (var("i", any), var("w", any), var("h", any));
        let t = var("threadIdx.x#1", VarKind::ThreadIdx(0));
        // `(i / w) * h + t`: `w` a whole divisor, `h` a factor.
        let index = Expr::add(Expr::mul(Expr::bin(BinOp::Div, i, w.clone()), h.clone()), t);
        let query = [Expr::eq(var("index", VarKind::Shared), index)];
        let launch = env([64, 1, 1]);
        let narrow =
            small_values_restriction_in(&query, &launch, NARROW_VALUES, 0).expect("narrow");
        let wide = small_values_restriction_in(&query, &launch, SMALL_VALUES, 0).expect("wide");
        let range_of = |restricted: &[Expr], name: &str| {
            let found = restricted[0].vars().into_iter().find_map(|v| match v.kind {
                VarKind::Param { lo, hi } if v.name.as_ref() == name => Some((lo, hi)),
                _ => None,
            });
            found.expect("retyped")
        };
        assert_eq!(range_of(&narrow, "w"), (1, 2));
        assert_eq!(range_of(&narrow, "h"), (0, 1));
        assert_eq!(range_of(&wide, "h"), (0, SMALL_VALUES - 1));
        // One value: each held variable pinned to its window's start.
        let pinned = small_values_restriction_in(&query, &launch, 1, 0).expect("pinned");
        assert_eq!(range_of(&pinned, "w"), (1, 1));
        assert_eq!(range_of(&pinned, "h"), (0, 0));
        let pins = crate::verify::pinned::pinned_parameters(&pinned);
        assert_eq!(
            pins.get(&Var::new("w", VarKind::Param { lo: 1, hi: 1 })),
            Some(&1)
        );
        let cases = |restricted: &[Expr]| {
            // (The division is made digits by `smt::solve_linear_split`.)
            let split = split_small_factors_up_to(restricted, &launch, MAX_RESTRICTED_CASES)
                .expect("split");
            split.iter().map(|e| format!("{e:?}").len()).sum::<usize>()
        };
        assert!(cases(&narrow) < cases(&wide));
    }

    /// A pin is tried where it takes a product, division or shift of
    /// run-time values away (`h % n` with `n == 1`), not where every one
    /// is left (`t * u` of a thread index and an unknown).
    #[test]
    fn pins_are_tried_where_they_take_nonlinear_operations_away() {
        let any = VarKind::Param {
            lo: i32::MIN as i64,
            hi: i32::MAX as i64,
        };
        let t = var("threadIdx.x#1", VarKind::ThreadIdx(0));
        let u = var(
            "u",
            VarKind::Unknown {
                scope: crate::model::Scope::Grid,
                lo: 0,
                hi: 9,
            },
        );
        let n = var("n", any);
        let index = |e: Expr| Expr::eq(var("index", VarKind::Shared), e);
        let launch = env([64, 1, 1]);
        let hashed = [index(Expr::bin(
            BinOp::Rem,
            Expr::mul(t.clone(), Expr::Const(3)),
            n,
        ))];
        let pinned = small_values_restriction_in(&hashed, &launch, 1, 0).expect("pinned");
        assert!(pins_take_nonlinearity_away(&pinned, &launch));
        let kept = [
            index(Expr::mul(t, u)),
            Expr::eq(var("k", any), Expr::Const(0)),
        ];
        assert!(!pins_take_nonlinearity_away(&kept, &launch));
    }

    #[test]
    fn a_thread_index_of_a_fixed_block_makes_its_products_linear() {
        let t = var("threadIdx.y#1", VarKind::ThreadIdx(1));
        let w = var("w", VarKind::Param { lo: 1, hi: 1 << 20 });
        let q = [Expr::mul(w.clone(), t.clone())];
        let split = split_small_factors(&q, &env([32, 8, 1])).expect("split");
        assert!(!split[0].is_nonlinear());
        // A block size over the limit, or a symbolic one, is left alone.
        assert!(split_small_factors(&q, &env([32, 64, 1])).is_none());
        let symbolic = LaunchEnv {
            block_dim: None,
            ..env([1, 1, 1])
        };
        assert!(split_small_factors(&q, &symbolic).is_none());
        // A linear query is kept as it is.
        let linear = [Expr::mul(Expr::Const(4), t)];
        assert!(split_small_factors(&linear, &env([32, 8, 1])).is_none());
    }
}
